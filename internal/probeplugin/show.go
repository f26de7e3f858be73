package probeplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// podReport is what kubectl probe show reports about one Pod.
type podReport struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	// Template names the object whose Pod template the probes are compared
	// with, such as replicaset.apps/web-5d4b8f7c9; empty for a Pod without
	// one.
	Template   string            `json:"template,omitempty"`
	Containers []containerReport `json:"containers"`
}

type containerReport struct {
	Name string `json:"name"`
	// Sidecar is set for an init container with restartPolicy: Always.
	Sidecar bool          `json:"sidecar,omitempty"`
	Probes  []probeReport `json:"probes"`
}

type probeReport struct {
	Type  probeType `json:"type"`
	Probe *v1.Probe `json:"probe"`
	// Drift says how the probe compares with the template's: same,
	// differs, or unknown when there is no template to compare with.
	Drift string `json:"drift"`
	// Kept is the probe that kubectl probe disable removed and keeps for
	// kubectl probe restore.
	Kept *v1.Probe `json:"kept,omitempty"`
}

const (
	driftSame    = "same"
	driftDiffers = "differs"
	driftUnknown = "unknown"
)

// templates finds and remembers the Pod templates of Pods' controllers.
type templates struct {
	client kubernetes.Interface
	cache  map[string]templateResult
}

type templateResult struct {
	name string
	spec *v1.PodSpec
	err  error
}

// of returns the name of the object whose Pod template the Pod was made
// from, and the template's spec: a ReplicaSet (also one of a Deployment),
// StatefulSet, DaemonSet or Job that controls the Pod. It returns no spec
// for a Pod without such a controller.
func (t *templates) of(ctx context.Context, pod *v1.Pod) (string, *v1.PodSpec, error) {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return "", nil, nil
	}
	key := ref.Kind + "/" + ref.Name
	if r, ok := t.cache[key]; ok {
		return r.name, r.spec, r.err
	}
	var r templateResult
	get := metav1.GetOptions{}
	apps, ns := t.client.AppsV1(), pod.Namespace
	switch ref.Kind {
	case "ReplicaSet":
		r.name = "replicaset.apps/" + ref.Name
		var obj *appsv1.ReplicaSet
		if obj, r.err = apps.ReplicaSets(ns).Get(ctx, ref.Name, get); r.err == nil {
			r.spec = &obj.Spec.Template.Spec
		}
	case "StatefulSet":
		r.name = "statefulset.apps/" + ref.Name
		var obj *appsv1.StatefulSet
		if obj, r.err = apps.StatefulSets(ns).Get(ctx, ref.Name, get); r.err == nil {
			r.spec = &obj.Spec.Template.Spec
		}
	case "DaemonSet":
		r.name = "daemonset.apps/" + ref.Name
		var obj *appsv1.DaemonSet
		if obj, r.err = apps.DaemonSets(ns).Get(ctx, ref.Name, get); r.err == nil {
			r.spec = &obj.Spec.Template.Spec
		}
	case "Job":
		r.name = "job.batch/" + ref.Name
		var obj *batchv1.Job
		if obj, r.err = t.client.BatchV1().Jobs(ns).Get(ctx, ref.Name, get); r.err == nil {
			r.spec = &obj.Spec.Template.Spec
		}
	}
	if r.err != nil {
		r.err = fmt.Errorf("%s: %w", r.name, r.err)
	}
	t.cache[key] = r
	return r.name, r.spec, r.err
}

// report describes the probes of a Pod's containers (only the one named by
// container, if set), compared with the template's.
func report(pod *v1.Pod, container, templateName string, template *v1.PodSpec) (*podReport, error) {
	kept, err := readKept(pod)
	if err != nil {
		return nil, err
	}
	containers := probeContainers(&pod.Spec)
	if container != "" {
		c, err := findContainer(&pod.Spec, container)
		if err != nil {
			return nil, err
		}
		containers = []*v1.Container{c}
	}
	r := &podReport{Namespace: pod.Namespace, Pod: pod.Name, Template: templateName}
	for _, c := range containers {
		var inTemplate *v1.Container
		if template != nil {
			// A container that the template lacks compares with no probes.
			inTemplate = &v1.Container{}
			if tc, err := findContainer(template, c.Name); err == nil {
				inTemplate = tc
			}
		}
		cr := containerReport{Name: c.Name, Sidecar: isSidecar(c)}
		for _, t := range probeTypes {
			pr := probeReport{Type: t, Probe: *t.of(c), Drift: driftUnknown, Kept: kept[c.Name][t]}
			if inTemplate != nil {
				pr.Drift = driftSame
				if !apiequality.Semantic.DeepEqual(pr.Probe, *t.of(inTemplate)) {
					pr.Drift = driftDiffers
				}
			}
			cr.Probes = append(cr.Probes, pr)
		}
		r.Containers = append(r.Containers, cr)
	}
	return r, nil
}

// printTable prints one line for each probe of each container.
func printTable(w io.Writer, reports []*podReport) error {
	tw := printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "POD\tCONTAINER\tPROBE\tHANDLER\tDELAY\tPERIOD\tTIMEOUT\tSUCCESS\tFAILURE\tTEMPLATE")
	for _, r := range reports {
		for _, c := range r.Containers {
			for _, p := range c.Probes {
				drift := p.Drift
				if drift == driftUnknown {
					drift = "-"
				}
				if p.Probe == nil {
					handler := "<none>"
					if p.Kept != nil {
						handler = "<disabled>"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\t\t\t\t\t%s\n", r.Pod, c.Name, p.Type, handler, drift)
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Pod, c.Name, p.Type, describeHandler(p.Probe),
					seconds(p.Probe.InitialDelaySeconds), seconds(p.Probe.PeriodSeconds), seconds(p.Probe.TimeoutSeconds),
					p.Probe.SuccessThreshold, p.Probe.FailureThreshold, drift)
			}
		}
	}
	return tw.Flush()
}

func seconds(s int32) string {
	return (time.Duration(s) * time.Second).String()
}

func newCmdShow(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	var (
		targetFlags targetFlags
		output      string
	)
	cmd := &cobra.Command{
		Use:   "show (TARGET... | -l SELECTOR) [-c CONTAINER] [-o yaml|json]",
		Short: "Show the probes of running Pods",
		Long: `Show the probes of running Pods: one line for each probe of each container
(regular containers and sidecars) with its handler, initial delay, period,
timeout and thresholds.

TEMPLATE compares the probe with the one in the template of the Pod's
controller (a ReplicaSet, also a Deployment's, a StatefulSet, DaemonSet or
Job): "differs" marks a probe changed on the Pod. A probe that kubectl probe
disable removed shows as <disabled>.`,
		Example: `  # The probes of the Pods of a Deployment
  kubectl probe show deployment/controller

  # The probes of the container app of the Pod api, as YAML
  kubectl probe show api -c app -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" && output != "yaml" && output != "json" {
				return fmt.Errorf("-o %s: must be yaml or json, or left out for a table", output)
			}
			ctx := cmd.Context()
			client, namespace, err := clients(configFlags)
			if err != nil {
				return err
			}
			t, err := resolveTargets(ctx, configFlags, client, namespace, args, targetFlags.selector)
			if err != nil {
				return err
			}
			tmpl := &templates{client: client, cache: map[string]templateResult{}}
			var reports []*podReport
			for _, pod := range t.pods {
				name, spec, err := tmpl.of(ctx, pod)
				if err != nil {
					fmt.Fprintf(streams.ErrOut, "warning: pod/%s: cannot compare with the template of %v\n", pod.Name, err)
				}
				r, err := report(pod, targetFlags.container, name, spec)
				if err != nil {
					return fmt.Errorf("pod/%s: %w", pod.Name, err)
				}
				reports = append(reports, r)
			}
			switch output {
			case "yaml":
				out, err := yaml.Marshal(reports)
				if err != nil {
					return err
				}
				_, err = streams.Out.Write(out)
				return err
			case "json":
				enc := json.NewEncoder(streams.Out)
				enc.SetIndent("", "    ")
				return enc.Encode(reports)
			}
			return printTable(streams.Out, reports)
		},
	}
	targetFlags.add(cmd, "Show only this container.")
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: yaml or json; a table without it.")
	return cmd
}
