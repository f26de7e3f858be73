package probeplugin

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubectl/pkg/util/podutils"
	"k8s.io/utils/ptr"
)

// limit is how many Pods of a workload a run takes out of readiness at
// once, and why. A change can make a Pod not Ready (a readiness probe that
// fails through its window, a liveness probe that restarts the container),
// so by default a run takes no more Pods of a workload at once than the
// workload lets a rollout take out of service, nor than a
// PodDisruptionBudget that selects them allows.
type limit struct {
	n   int
	why string
}

// String is the limit and why: "3: maxUnavailable 25% of ...", or "" for
// none.
func (l limit) String() string {
	if l.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d: %s", l.n, l.why)
}

// workloadLimit returns the number of its Pods that a workload's rollout
// takes out of service at once, computed as its controller does, or nil
// for a kind that has none (a ReplicaSet, a Job, a Deployment that
// recreates its Pods, a kind that is not built in). name names it:
// deployment.apps/web.
func workloadLimit(name string, u *unstructured.Unstructured) *limit {
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj) != nil {
		return nil
	}
	var (
		maxUnavailable intstr.IntOrString
		of             int
		unit           = "replicas"
		roundUp        bool
	)
	switch w := obj.(type) {
	case *appsv1.Deployment:
		if w.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			return nil
		}
		maxUnavailable, of = intstr.FromString("25%"), int(ptr.Deref(w.Spec.Replicas, 1))
		if ru := w.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
	case *appsv1.StatefulSet:
		maxUnavailable, of, roundUp = intstr.FromInt32(1), int(ptr.Deref(w.Spec.Replicas, 1)), true
		if ru := w.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
	case *appsv1.DaemonSet:
		maxUnavailable, of, unit, roundUp = intstr.FromInt32(1), int(w.Status.DesiredNumberScheduled), "Pods", true
		if ru := w.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
	default:
		return nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&maxUnavailable, of, roundUp)
	if err != nil {
		return nil
	}
	why := fmt.Sprintf("maxUnavailable %s of %s's %d %s", maxUnavailable.String(), name, of, unit)
	if n == 0 {
		// The workload's rollout adds a Pod before it takes one out; a
		// probe change has no Pod to add, and still changes one at a time.
		why += " is 0, but a probe change cannot surge"
	}
	return &limit{n: max(n, 1), why: why}
}

// replicasOf returns how many Pods a workload asks for: its
// spec.replicas, a DaemonSet's Pods to schedule, or pods, the Pods it has,
// for a kind that does not say.
func replicasOf(obj *unstructured.Unstructured, pods int) int {
	field := []string{"spec", "replicas"}
	if obj.GroupVersionKind().GroupKind() == appsv1.SchemeGroupVersion.WithKind("DaemonSet").GroupKind() {
		field = []string{"status", "desiredNumberScheduled"}
	}
	if n, ok, err := unstructured.NestedInt64(obj.Object, field...); ok && err == nil {
		return int(n)
	}
	return pods
}

// disruptionLimit returns how many of the Pods that a PodDisruptionBudget
// expects may be unavailable at once, computed as the disruption
// controller does.
func disruptionLimit(pdb *policyv1.PodDisruptionBudget, expected int) limit {
	name := "poddisruptionbudget.policy/" + pdb.Name
	var (
		n   int
		why string
		err error
	)
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		n, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, expected, true)
		why = fmt.Sprintf("%s: maxUnavailable %s of %d Pods", name, pdb.Spec.MaxUnavailable.String(), expected)
	case pdb.Spec.MinAvailable != nil:
		var least int
		least, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, expected, true)
		n, why = expected-least, fmt.Sprintf("%s: minAvailable %s of %d Pods", name, pdb.Spec.MinAvailable.String(), expected)
	}
	if err != nil || why == "" {
		// A budget that sets neither field allows every disruption.
		return limit{}
	}
	// A budget that allows none still lets one Pod change at a time: a
	// probe change does not evict it.
	if n <= 0 {
		why += " allows none, but a probe change evicts no Pod"
	}
	return limit{n: max(n, 1), why: why}
}

// floor is the fewest Ready Pods that a run leaves of the Pods it counts:
// a workload's counts the Pods of the workload, and keeps its replicas less
// its limit (see workloadFloor); a PodDisruptionBudget's counts every Pod
// that the budget selects, and keeps the Pods it expects less those it lets
// be unavailable (see nextBatch).
type floor struct {
	// name names the workload whose Pods it counts; "" for a budget's,
	// whose limit names it, and for the Pods of no workload. within names
	// the run's workload whose Pods those are, for a workload under it
	// that has a limit of its own; "" otherwise. budget is set for a
	// budget's.
	name, within string
	budget       bool
	limit        limit
	// pods are the Pods it counts, of which ready are Ready now, of the
	// Pods expected.
	pods      map[types.UID]bool
	ready, of int
}

// newFloor returns the floor that keeps pods, of the Pods expected, to
// the limit, counting those that are Ready.
func newFloor(name string, l limit, of int, pods []*v1.Pod) floor {
	f := floor{name: name, limit: l, pods: map[types.UID]bool{}, of: of}
	for _, pod := range pods {
		f.pods[pod.UID] = true
		if podutils.IsPodReady(pod) {
			f.ready++
		}
	}
	return f
}

// recount returns the floor, counting pods, as read again, instead, and
// expecting as many: the floor of Pods of no workload, or of a workload
// read by name, has no replicas that say how many to expect, so a Pod
// that is deleted, or replaced under another name, leaves it.
func (f floor) recount(pods []*v1.Pod) floor {
	again := newFloor(f.name, f.limit, len(pods), pods)
	again.within, again.budget = f.within, f.budget
	return again
}

// least is the fewest Ready Pods that the floor keeps.
func (f floor) least() int {
	return f.of - f.limit.n
}

// String says whose Pods the floor counts, how many are Ready, how many
// must stay so, and why.
func (f floor) String() string {
	s := fmt.Sprintf("%d of %d Pods Ready, and at least %d must stay Ready (%s)", f.ready, f.of, f.least(), f.limit.why)
	if f.name != "" {
		s = f.title() + ": " + s
	}
	return s
}

// title names whose Pods the floor counts: deployment.apps/web, or
// deployment.apps/web of example.com/app for a workload under another.
func (f floor) title() string {
	if f.within != "" {
		return f.name + " of " + f.within
	}
	return f.name
}

// disruptionFloors returns the floors of the PodDisruptionBudgets of the
// namespace that select any of the Pods, each counting, as the disruption
// controller does, every Pod that it selects: Ready and not terminating,
// of the Pods that its status expects, or, when its status does not say,
// of the Pods it selects that are not terminating or finished.
func disruptionFloors(ctx context.Context, client kubernetes.Interface, namespace string, pods []*v1.Pod) ([]floor, error) {
	list, err := client.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var floors []floor
	for i := range list.Items {
		pdb := &list.Items[i]
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !slices.ContainsFunc(pods, func(pod *v1.Pod) bool { return selector.Matches(labels.Set(pod.Labels)) }) {
			continue
		}
		selected, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return nil, err
		}
		var active []*v1.Pod
		for j := range selected.Items {
			if leaving(&selected.Items[j]) == "" {
				active = append(active, &selected.Items[j])
			}
		}
		of := cmp.Or(int(pdb.Status.ExpectedPods), len(active))
		if l := disruptionLimit(pdb, of); l.n > 0 {
			f := newFloor("", l, of, active)
			f.budget = true
			floors = append(floors, f)
		}
	}
	return floors, nil
}

// workloadFloor is a workload of a run's Pods, with the floor that the run
// keeps of its Pods; or, with workload nil, the run's Pods that belong to
// none, or to one that cannot be read, which keep a floor of their own.
type workloadFloor struct {
	workload *unstructured.Unstructured
	// own is the workload's own limit (workloadLimit); nil when it has
	// none.
	own *limit
	// unknown says why the workload's limit is not known: it, a controller
	// of its Pods, or its Pods cannot be read, so that it, or a workload
	// between it and its Pods, may have a limit that the run cannot see;
	// "" when it is known. The run then changes its Pods one at a time.
	unknown string
	// custom is set for a workload of a kind that is not built in, whose
	// controller may keep a limit of its own (an Argo Rollout's
	// maxUnavailable) where kubectl probe cannot read it: the run changes
	// its Pods one at a time, or as many as --max-in-flight says, since the
	// floor counts all of them.
	custom bool
	// named are the run's Pods that the floor counts, read again by name,
	// for a workload whose Pods cannot be read; nil otherwise.
	named []string
	// floor counts the workload's Pods of its replicas, both as last read
	// (count); its limit is the one that chooseLimits chose last.
	floor floor
}

// customKind is why the limit of a workload of a kind that is not built
// in is not known.
const customKind = "its kind is not built in"

// unknownLimit is the limit of a workload whose limit is not known: one
// Pod at a time.
func unknownLimit(why string) limit {
	return limit{n: 1, why: "its limit is not known (" + why + "), so one Pod at a time"}
}

// chooseLimits chooses the limit of each workload of t: the smallest of its
// own, of those of the budgets that count any of its Pods that the run
// changes, and of --max-in-flight, of its replicas (see
// chooseMaxInFlight), or one Pod when its limit is not known (but for a
// kind that is not built in, as --max-in-flight says); and, for a
// workload that the run's Pods count under, of those of the workloads
// under it, each of which keeps its own floor too: the smallest allowance
// of the Pods' chain of controllers holds. It returns the largest. A run
// chooses them as it begins, and again before each batch, with the
// workloads and the budgets as it reads them then (targets.current).
func (t *targets) chooseLimits(flag string, budgets []floor) (int, error) {
	for _, w := range t.floors {
		var limits []limit
		if w.own != nil {
			limits = append(limits, *w.own)
		}
		switch {
		case w.unknown != "":
			limits = append(limits, unknownLimit(w.unknown))
		case w.custom && flag == "":
			limits = append(limits, unknownLimit(customKind))
		}
		for _, b := range budgets {
			if slices.ContainsFunc(t.pods, func(pod *v1.Pod) bool { return w.floor.pods[pod.UID] && b.pods[pod.UID] }) {
				limits = append(limits, b.limit)
			}
		}
		l, err := chooseMaxInFlight(flag, w.floor.of, limits)
		if err != nil {
			return 0, err
		}
		w.floor.limit = l
	}
	largest := 0
	for _, w := range t.floors {
		if w.floor.within != "" {
			continue
		}
		for _, inner := range t.floors {
			if inner.floor.within == w.floor.name && inner.floor.limit.n < w.floor.limit.n {
				w.floor.limit = inner.floor.limit
			}
		}
		largest = max(largest, w.floor.limit.n)
	}
	return largest, nil
}

// defaultMaxInFlight is the limit when neither --max-in-flight, the
// workload nor a PodDisruptionBudget says: with it, 20 Pods change in 5
// failure windows (1, 2, 4, 8 and 5 Pods), 50 Pods in 8.
const defaultMaxInFlight = 10

// chooseMaxInFlight returns a workload's limit: the smallest of limits, the
// workload's and the budgets', and of --max-in-flight, a number or a
// percentage of its replicas, rounded down and at least 1, which can lower
// it but not raise it; defaultMaxInFlight when none says.
func chooseMaxInFlight(flag string, replicas int, limits []limit) (limit, error) {
	var chosen limit
	if flag != "" {
		var err error
		if chosen, err = parseMaxInFlight(flag, replicas); err != nil {
			return limit{}, err
		}
	}
	for _, l := range limits {
		if l.n > 0 && (chosen.n == 0 || l.n < chosen.n) {
			if flag != "" {
				l.why += ", fewer than --max-in-flight=" + flag
			}
			chosen = l
		}
	}
	if chosen.n == 0 {
		return limit{n: defaultMaxInFlight, why: "the default, as neither the workload nor a PodDisruptionBudget sets a limit"}, nil
	}
	return chosen, nil
}

// parseMaxInFlight returns the limit that --max-in-flight gives.
func parseMaxInFlight(flag string, replicas int) (limit, error) {
	bad := fmt.Errorf("--max-in-flight=%s: give a number of Pods, at least 1, or a percentage of the replicas, such as 25%%", flag)
	if strings.HasSuffix(flag, "%") {
		if p, err := strconv.Atoi(strings.TrimSuffix(flag, "%")); err != nil || p < 1 {
			return limit{}, bad
		}
		percent := intstr.FromString(flag)
		n, err := intstr.GetScaledValueFromIntOrPercent(&percent, replicas, false)
		if err != nil {
			return limit{}, bad
		}
		return limit{n: max(n, 1), why: fmt.Sprintf("--max-in-flight=%s of %d replicas", flag, replicas)}, nil
	}
	n, err := strconv.Atoi(flag)
	if err != nil || n < 1 {
		return limit{}, bad
	}
	return limit{n: n, why: "--max-in-flight=" + flag}, nil
}
