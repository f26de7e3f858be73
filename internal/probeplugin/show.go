package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubectl/pkg/cmd/get"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// podProbes is what kubectl probe show reports about one Pod.
type podProbes struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        podMeta `json:"metadata"`
	// ObservedGeneration is the generation that the Pod's kubelet has
	// applied (status.observedGeneration).
	ObservedGeneration int64 `json:"observedGeneration"`
	// Template names the template the Pod was created from, which its
	// probes are compared with, such as replicaset.apps/web-5d4b8f7c9;
	// empty for a Pod without one.
	Template   string            `json:"template,omitempty"`
	Containers []containerProbes `json:"containers"`
}

type podMeta struct {
	Name       string    `json:"name"`
	Namespace  string    `json:"namespace"`
	UID        types.UID `json:"uid"`
	Generation int64     `json:"generation"`
}

type containerProbes struct {
	Name string `json:"name"`
	// Sidecar is set for an init container with restartPolicy: Always.
	Sidecar      bool          `json:"sidecar,omitempty"`
	Ready        bool          `json:"ready"`
	Started      bool          `json:"started"`
	RestartCount int32         `json:"restartCount"`
	Probes       []probeReport `json:"probes"`
	// LastProbeEvent is the latest Unhealthy, ProbeWarning or
	// ContainerProbeChanged event of the container.
	LastProbeEvent *probeEvent `json:"lastProbeEvent,omitempty"`
}

type probeReport struct {
	Type  probeType `json:"type"`
	Probe *v1.Probe `json:"probe"`
	// Template says how the probe compares with the template's: same,
	// differs, or unknown when there is no template to compare with.
	Template string `json:"template"`
	// Kept is the probe that kubectl probe disable removed and keeps for
	// kubectl probe restore.
	Kept *v1.Probe `json:"kept,omitempty"`
}

type probeEvent struct {
	Type    string      `json:"type,omitempty"`
	Reason  string      `json:"reason"`
	Message string      `json:"message"`
	Count   int32       `json:"count,omitempty"`
	Time    metav1.Time `json:"time"`
}

const (
	templateSame    = "same"
	templateDiffers = "differs"
	templateUnknown = "unknown"
)

// probeEventReasons are the events that show reports: a probe that failed,
// warned, or changed.
var probeEventReasons = []string{"Unhealthy", "ProbeWarning", "ContainerProbeChanged"}

// describePod describes the probes and state of a Pod's containers (only the one
// named by container, if set), compared with template, and the probes that
// the Pod keeps (readKept).
func describePod(pod *v1.Pod, container string, template *podTemplate, kept keptProbes, events []v1.Event) *podProbes {
	containers := probeContainers(&pod.Spec)
	if container != "" {
		containers = slices.DeleteFunc(containers, func(c *v1.Container) bool { return c.Name != container })
	}
	r := &podProbes{
		TypeMeta:           metav1.TypeMeta{APIVersion: resultGroupVersion, Kind: "PodProbes"},
		Metadata:           podMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, Generation: pod.Generation},
		ObservedGeneration: pod.Status.ObservedGeneration,
	}
	if template != nil {
		r.Template = template.name
	}
	for _, c := range containers {
		cr := containerProbes{Name: c.Name, Sidecar: isSidecar(c)}
		if s := containerStatus(pod, c.Name); s != nil {
			cr.Ready, cr.RestartCount = s.Ready, s.RestartCount
			cr.Started = s.Started != nil && *s.Started
		}
		if e := latestProbeEvent(events, pod, c.Name, probeEventReasons); e != nil {
			cr.LastProbeEvent = &probeEvent{Type: e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count, Time: metav1.NewTime(eventTime(e))}
		}
		for _, t := range probeTypes {
			pr := probeReport{Type: t, Probe: *t.of(c), Template: templateUnknown, Kept: kept[c.Name][t]}
			if template != nil {
				pr.Template = templateSame
				if !equalProbes(pr.Probe, *t.of(template.container(c.Name))) {
					pr.Template = templateDiffers
				}
			}
			cr.Probes = append(cr.Probes, pr)
		}
		r.Containers = append(r.Containers, cr)
	}
	return r
}

// printTable prints one line for each container, as a table of kubectl's;
// wide prints each probe's timing and thresholds too.
func printTable(w io.Writer, reports []*podProbes, wide bool, now time.Time) error {
	table := &metav1.Table{}
	for _, name := range []string{"Pod", "Container", "Ready", "Restarts", "Liveness", "Readiness", "Startup", "Template", "Generation", "Last Probe Event"} {
		table.ColumnDefinitions = append(table.ColumnDefinitions, metav1.TableColumnDefinition{Name: name, Type: "string"})
	}
	for _, r := range reports {
		for _, c := range r.Containers {
			cells := []any{r.Metadata.Name, c.Name, fmt.Sprint(c.Ready), c.RestartCount}
			var differs []string
			template := "-"
			for _, p := range c.Probes {
				cell := "<none>"
				switch {
				case p.Probe != nil && wide:
					cell = describeProbe(p.Probe)
				case p.Probe != nil:
					cell = describeHandler(p.Probe)
				case p.Kept != nil:
					cell = "<disabled>"
				}
				cells = append(cells, cell)
				if p.Template != templateUnknown {
					template = templateSame
				}
				if p.Template == templateDiffers {
					differs = append(differs, string(p.Type))
				}
			}
			if len(differs) > 0 {
				template = templateDiffers + ":" + strings.Join(differs, ",")
			}
			event := "<none>"
			if e := c.LastProbeEvent; e != nil {
				event = fmt.Sprintf("%s ago %s: %s", duration.HumanDuration(now.Sub(e.Time.Time)), e.Reason, firstLine(e.Message, 80))
			}
			cells = append(cells, template, fmt.Sprintf("%d/%d", r.Metadata.Generation, r.ObservedGeneration), event)
			table.Rows = append(table.Rows, metav1.TableRow{Cells: cells})
		}
	}
	return printers.NewTablePrinter(printers.PrintOptions{Wide: wide}).PrintObj(table, w)
}

// probeEvents lists the events about Pods in the namespaces of pods.
func probeEvents(ctx context.Context, client kubernetes.Interface, pods []*v1.Pod) ([]v1.Event, error) {
	var events []v1.Event
	seen := map[string]bool{}
	for _, pod := range pods {
		if seen[pod.Namespace] {
			continue
		}
		seen[pod.Namespace] = true
		list, err := client.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("involvedObject.kind", "Pod").String(),
		})
		if err != nil {
			return nil, err
		}
		events = append(events, list.Items...)
	}
	return events, nil
}

// showOptions are the options of kubectl probe show.
type showOptions struct {
	genericiooptions.IOStreams
	// PrintFlags and customColumns print -o json, yaml, name, the
	// templates and custom-columns; without -o, or with -o wide, show
	// prints its table.
	PrintFlags    *genericclioptions.PrintFlags
	customColumns *get.CustomColumnsPrintFlags
	output        string
	targetFlags

	// Set by Complete.
	args []string
	clients
	// printer prints -o's format; nil for the table.
	printer printers.ResourcePrinter
}

func newShowOptions(streams genericiooptions.IOStreams) *showOptions {
	o := &showOptions{IOStreams: streams, PrintFlags: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme), customColumns: get.NewCustomColumnsPrintFlags()}
	// -o is show's own, which knows the table and custom-columns too.
	o.PrintFlags.OutputFormat = nil
	return o
}

// formats are the output formats of show.
func (o *showOptions) formats() []string {
	formats := slices.Concat([]string{"wide"}, o.PrintFlags.AllowedFormats(), o.customColumns.AllowedFormats())
	slices.Sort(formats)
	return formats
}

func newCmdShow(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := newShowOptions(streams)
	cmd := &cobra.Command{
		Use:   "show (TARGET... | -l SELECTOR) [-c CONTAINER] [-o FORMAT]",
		Short: "Show the probes and state of running Pods' containers",
		Long: `Show the probes and state of running Pods' containers, one line for each
container (regular containers and sidecars): whether it is Ready, its
restarts, its liveness, readiness and startup probes, how they compare with
the template the Pod was created from, the Pod's generation and the one its
kubelet has applied, and the container's last probe event (Unhealthy,
ProbeWarning or ContainerProbeChanged) with its age.

A probe that kubectl probe disable removed shows as <disabled>. TEMPLATE is
"same", "differs:" and the probes that differ, or "-" for a Pod without a
template: the template of its ReplicaSet, or of the revision of its
StatefulSet or DaemonSet that created it (its label
controller-revision-hash), or of its Job. -o wide shows each probe's timing
and thresholds; -o json, yaml, jsonpath, go-template and custom-columns a
List of PodProbes, one for each Pod, with all of it; -o name the Pods,
pod/NAME, for other kubectl commands.`,
		Example: `  # The probes of the Pods of a Deployment
  kubectl probe show deployment/controller

  # The probes of the container app of the Pod api, as YAML
  kubectl probe show api -c app -o yaml

  # Each Pod of a Deployment, with the types of its probes that differ from its template
  kubectl probe show deployment/web -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.containers[*].probes[?(@.template=="differs")].type}{"\n"}{end}'

  # Each Pod's liveness probe's failureThreshold
  kubectl probe show -l app=web -c app -o custom-columns=POD:.metadata.name,FAILURES:.containers[0].probes[0].probe.failureThreshold`,
		ValidArgsFunction: targetCompletion(f),
		RunE:              runE(f, o),
	}
	o.targetFlags.add(cmd, "Show only this container, and only the Pods that have it (a Pod without it is left out, after a warning).")
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", fmt.Sprintf("Output format: a table without it, or one of (%s).", strings.Join(o.formats(), ", ")))
	return cmd
}

// Complete chooses the printer of -o, and makes the clients.
func (o *showOptions) Complete(f cmdutil.Factory, _ *cobra.Command, args []string) error {
	o.args = args
	if err := o.toPrinter(); err != nil {
		return err
	}
	return o.clients.complete(f)
}

// toPrinter chooses the printer of -o: none for the table.
func (o *showOptions) toPrinter() error {
	if o.output == "" || o.output == "wide" {
		return nil
	}
	if o.PrintFlags.TemplatePrinterFlags.TemplateArgument != nil {
		o.customColumns.TemplateArgument = *o.PrintFlags.TemplatePrinterFlags.TemplateArgument
	}
	var err error
	o.printer, err = o.customColumns.ToPrinter(o.output)
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		o.PrintFlags.OutputFormat = &o.output
		o.printer, err = o.PrintFlags.ToPrinter()
	}
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		return fmt.Errorf("-o %s: give one of %s, or leave it out for a table", o.output, strings.Join(o.formats(), ", "))
	}
	return err
}

// Validate checks that the TARGETs or -l choose the Pods.
func (o *showOptions) Validate() error {
	return o.targetFlags.validate(o.args)
}

// Run shows the Pods' probes.
func (o *showOptions) Run(ctx context.Context) error {
	t, err := resolveTargets(ctx, o.getter, o.client, o.owners, o.namespace, o.args, o.selector)
	if err != nil {
		return err
	}
	pods := t.pods
	for _, s := range t.skipped {
		pods = append(pods, s.pod)
	}
	if pods, err = o.withContainer(pods); err != nil {
		return err
	}
	if o.output == "name" {
		for _, pod := range pods {
			if err := o.printer.PrintObj(pod, o.Out); err != nil {
				return err
			}
		}
		return nil
	}
	events, err := probeEvents(ctx, o.client, pods)
	if err != nil {
		fmt.Fprintf(o.ErrOut, "warning: cannot read the Pods' events: %v\n", err)
	}
	tmpl := newTemplates(o.client)
	var reports []*podProbes
	for _, pod := range pods {
		template, err := tmpl.of(ctx, pod)
		if err != nil {
			fmt.Fprintf(o.ErrOut, "warning: pod/%s: cannot compare with the template it was created from: %v\n", pod.Name, err)
		}
		kept, err := readKept(pod)
		if err != nil {
			fmt.Fprintf(o.ErrOut, "warning: pod/%s: cannot read the probes that kubectl probe disable kept: %v; a probe that it removed shows as <none>\n", pod.Name, err)
		}
		reports = append(reports, describePod(pod, o.container, template, kept, events))
	}
	if o.printer == nil {
		return printTable(o.Out, reports, o.output == "wide", time.Now())
	}
	return printAs(o.printer, o.Out, probesList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: reports})
}

// withContainer returns the Pods that have the container of -c, all of them
// without -c. A Pod without it, as a rollout that adds a sidecar leaves the
// old Pods, is left out after a warning; it is an error only when no Pod
// has it.
func (o *showOptions) withContainer(pods []*v1.Pod) ([]*v1.Pod, error) {
	if o.container == "" {
		return pods, nil
	}
	var (
		with []*v1.Pod
		errs []error
	)
	for _, pod := range pods {
		if _, _, err := findContainer(pod, o.container); err != nil {
			errs = append(errs, fmt.Errorf("pod/%s: %w", pod.Name, err))
			continue
		}
		with = append(with, pod)
	}
	if len(with) == 0 {
		return nil, errors.Join(errs...)
	}
	for _, err := range errs {
		fmt.Fprintf(o.ErrOut, "warning: %v; it is left out\n", err)
	}
	return with, nil
}

// probesList is what show prints with -o json, yaml, the templates and
// custom-columns: a List of PodProbes.
type probesList struct {
	metav1.TypeMeta `json:",inline"`
	Items           []*podProbes `json:"items"`
}
