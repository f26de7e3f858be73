package probeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// workloadAfter is what a run found, once it ended, of a workload whose
// Pods it changed: the top controller of those Pods (see owners), which
// makes the Pods that replace them from its Pod template.
type workloadAfter struct {
	// name names it: deployment.apps/web.
	name string
	// types are the probes that the run changed, of container.
	types     []probeType
	container string
	// patch is the JSON patch of the workload that gives its template the
	// probes that the run left on its Pods; "" when the template has them
	// already, or when the run disabled them, for a while: disabled.
	patch    string
	disabled bool
	// why says why there is no patch when the template's probes differ
	// from the Pods'; "" otherwise.
	why string
	// created are the Pods that the workload created during the run, with
	// probes other than those the run left on its Pods: its template's.
	created []string
}

// afterRun is the run's look at the workloads of the Pods it changed, once
// it ended: for each one, the Pods it created meanwhile that carry its
// template's probes, and the change of its template that would give the
// Pods that replace these the new probes too. A workload whose Pods cannot
// be read again is warned of, and left out.
func (r *runner) afterRun(ctx context.Context, began time.Time) []workloadAfter {
	var (
		tops   []*unstructured.Unstructured
		groups = map[types.UID][]*podRun{}
		inRun  = map[types.UID]bool{}
	)
	for _, pr := range r.runs {
		inRun[pr.pod.UID] = true
		if pr.result != resultChanged {
			continue
		}
		chain, err := r.owners.chain(ctx, pr.stored)
		if err != nil {
			r.report.warnf("warning: pod/%s: cannot read its controllers: %v\n", pr.pod.Name, err)
			continue
		}
		if len(chain) == 0 {
			continue
		}
		top := chain[len(chain)-1]
		if groups[top.GetUID()] == nil {
			tops = append(tops, top)
		}
		groups[top.GetUID()] = append(groups[top.GetUID()], pr)
	}
	var after []workloadAfter
	for _, top := range tops {
		prs := groups[top.GetUID()]
		first := prs[0]
		w := workloadAfter{name: nameOf(top), container: first.container, types: changedProbes(first.pod, first.stored, first.container)}
		probes := probesOf(first.stored, first.container)
		for _, pr := range prs[1:] {
			if pr.container != w.container || !sameProbes(probesOf(pr.stored, pr.container), probes, w.types) {
				w.why = "the Pods that the run changed differ in their new probes, so no one change of the template fits them all"
			}
		}
		_, w.disabled = unwrap(r.change).(disableChange)
		if w.why == "" && !w.disabled {
			patch, err := templatePatch(top, w.container, w.types, probes)
			if err != nil {
				w.why = err.Error()
			}
			w.patch = patch
		}
		pods, _, err := r.owners.podsOf(ctx, r.patcher.client, top)
		if err != nil {
			r.report.warnf("warning: %s: cannot read its Pods again: %v\n", w.name, err)
		}
		for _, pod := range pods {
			if !inRun[pod.UID] && !pod.CreationTimestamp.Time.Before(began.Truncate(time.Second)) && !sameProbes(probesOf(pod, w.container), probes, w.types) {
				w.created = append(w.created, pod.Name)
			}
		}
		after = append(after, w)
	}
	return after
}

// templateOf returns the fields of the workload's Pod template, from which
// it makes the Pods that replace its Pods: spec.template, or a CronJob's
// spec.jobTemplate.spec.template, of the Jobs that it creates; an error for
// a Job, whose template cannot change.
func templateOf(workload *unstructured.Unstructured) ([]string, error) {
	switch workload.GroupVersionKind().GroupKind() {
	case batchv1.SchemeGroupVersion.WithKind("Job").GroupKind():
		return nil, errors.New("a Job's Pod template cannot change once the Job is created")
	case batchv1.SchemeGroupVersion.WithKind("CronJob").GroupKind():
		return []string{"spec", "jobTemplate", "spec", "template"}, nil
	}
	return []string{"spec", "template"}, nil
}

// sameProbes says whether a and b have the same probes of the types.
func sameProbes(a, b map[probeType]*v1.Probe, types []probeType) bool {
	return !slices.ContainsFunc(types, func(t probeType) bool { return !equalProbes(a[t], b[t]) })
}

// templatePatch returns the JSON patch that gives the Pod template of
// workload (templateOf) the probes of the types of its container that
// probes has, or removes them where probes has none; "" when the template
// has them already. The workload is as the run read it, when it began: the
// patch first tests that the container is still where it was read, and
// that each probe that it changes is still as it was read, so that a
// template that changed since, in someone else's edit, is not overwritten:
// the patch then fails, and changes nothing. Of a probe that the template
// did not have, which a test cannot ask after, it tests the container as a
// whole.
func templatePatch(workload *unstructured.Unstructured, container string, types []probeType, probes map[probeType]*v1.Probe) (string, error) {
	template, err := templateOf(workload)
	if err != nil {
		return "", err
	}
	spec, ok, _ := unstructured.NestedMap(workload.Object, append(template, "spec")...)
	if !ok {
		return "", fmt.Errorf("it has no Pod template at %s to change", strings.Join(template, "."))
	}
	var (
		path string
		c    map[string]any
	)
	for _, list := range []string{"initContainers", "containers"} {
		items, _, _ := unstructured.NestedSlice(spec, list)
		for i, item := range items {
			if m, ok := item.(map[string]any); ok && m["name"] == container {
				path, c = fmt.Sprintf("/%s/spec/%s/%d", strings.Join(template, "/"), list, i), m
			}
		}
	}
	if c == nil {
		return "", fmt.Errorf("its Pod template has no container %q", container)
	}
	var (
		tests   []map[string]any
		changes []map[string]any
		added   bool
	)
	for _, t := range types {
		field := string(t) + "Probe"
		var was *v1.Probe
		m, ok := c[field].(map[string]any)
		if ok {
			was = &v1.Probe{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, was); err != nil {
				return "", fmt.Errorf("its template's %s: %w", field, err)
			}
		}
		switch now := probes[t]; {
		case equalProbes(was, now):
			continue
		case now == nil:
			changes = append(changes, map[string]any{"op": "remove", "path": path + "/" + field})
		default:
			changes = append(changes, map[string]any{"op": "add", "path": path + "/" + field, "value": now})
		}
		if was == nil {
			added = true
			continue
		}
		tests = append(tests, map[string]any{"op": "test", "path": path + "/" + field, "value": m})
	}
	if len(changes) == 0 {
		return "", nil
	}
	tests = slices.Insert(tests, 0, map[string]any{"op": "test", "path": path + "/name", "value": container})
	if added {
		tests = []map[string]any{{"op": "test", "path": path, "value": c}}
	}
	patch, err := json.Marshal(slices.Concat(tests, changes))
	return string(patch), err
}
