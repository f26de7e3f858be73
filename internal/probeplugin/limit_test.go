package probeplugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// A workload's own limit of Pods unavailable at once, as its controller
// computes it for a rollout.
func TestWorkloadLimit(t *testing.T) {
	percent := func(s string) *intstr.IntOrString { return ptr.To(intstr.FromString(s)) }
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		// want is the limit and why; "" for none.
		want string
	}{{
		name: "a Deployment's maxUnavailable of 25%, rounded down",
		obj: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](12), Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: percent("25%")}}}},
		want: "3: maxUnavailable 25% of deployment.apps/web's 12 replicas",
	}, {
		name: "a Deployment's default, of 2 replicas: at least one",
		obj:  &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}},
		want: "1: maxUnavailable 25% of deployment.apps/web's 2 replicas is 0, but a probe change cannot surge",
	}, {
		name: "a Deployment that recreates its Pods says nothing",
		obj:  &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](5), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}},
	}, {
		name: "a StatefulSet: one at a time",
		obj:  &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](5)}},
		want: "1: maxUnavailable 1 of statefulset.apps/web's 5 replicas",
	}, {
		name: "a StatefulSet's maxUnavailable, rounded up",
		obj: &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](10), UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
			Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: percent("25%")}}}},
		want: "3: maxUnavailable 25% of statefulset.apps/web's 10 replicas",
	}, {
		name: "a DaemonSet's maxUnavailable, of the Pods it schedules",
		obj: &appsv1.DaemonSet{
			Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: percent("10%")}}},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 30},
		},
		want: "3: maxUnavailable 10% of daemonset.apps/web's 30 Pods",
	}, {
		name: "a ReplicaSet says nothing",
		obj:  &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](4)}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			kind := strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", tc.obj), "*v1."))
			l := workloadLimit(kind+".apps/web", asUnstructured(t, tc.obj))
			got := ""
			if l != nil {
				got = l.String()
			}
			if got != tc.want {
				t.Errorf("limit %q, want %q", got, tc.want)
			}
		})
	}
}

// A PodDisruptionBudget's limit: how many of the Pods it expects may be
// unavailable at once.
func TestDisruptionLimit(t *testing.T) {
	pdb := func(spec policyv1.PodDisruptionBudgetSpec, expected int32) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: spec, Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: expected}}
	}
	for _, tc := range []struct {
		name string
		pdb  *policyv1.PodDisruptionBudget
		want string
	}{{
		name: "minAvailable",
		pdb:  pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(10))}, 12),
		want: "2: poddisruptionbudget.policy/web: minAvailable 10 of 12 Pods",
	}, {
		name: "minAvailable as a percentage, rounded up",
		pdb:  pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("90%"))}, 12),
		want: "1: poddisruptionbudget.policy/web: minAvailable 90% of 12 Pods",
	}, {
		name: "maxUnavailable as a percentage, rounded up",
		pdb:  pdb(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromString("50%"))}, 3),
		want: "2: poddisruptionbudget.policy/web: maxUnavailable 50% of 3 Pods",
	}, {
		name: "one that allows none: one at a time, said",
		pdb:  pdb(policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("100%"))}, 3),
		want: "1: poddisruptionbudget.policy/web: minAvailable 100% of 3 Pods allows none, but a probe change evicts no Pod",
	}, {
		name: "neither: every disruption allowed, no limit",
		pdb:  pdb(policyv1.PodDisruptionBudgetSpec{}, 12),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := disruptionLimit(tc.pdb, int(tc.pdb.Status.ExpectedPods)).String(); got != tc.want {
				t.Errorf("limit %q, want %q", got, tc.want)
			}
		})
	}
}

// --max-in-flight is a number, a percentage of the workload's replicas, or,
// by default, the smallest limit of the workload and the
// PodDisruptionBudgets that select its Pods.
func TestChooseMaxInFlight(t *testing.T) {
	deployment := limit{n: 3, why: "maxUnavailable 25% of deployment.apps/web's 12 replicas"}
	budget := limit{n: 2, why: "poddisruptionbudget.policy/web: minAvailable 10 of 12 Pods"}
	for _, tc := range []struct {
		name     string
		flag     string
		replicas int
		limits   []limit
		want     string
	}{
		{"the workload's", "", 12, []limit{deployment}, "3: maxUnavailable 25% of deployment.apps/web's 12 replicas"},
		{"the smallest", "", 12, []limit{deployment, budget}, "2: poddisruptionbudget.policy/web: minAvailable 10 of 12 Pods"},
		{"none: the default", "", 40, nil, "10: the default, as neither the workload nor a PodDisruptionBudget sets a limit"},
		{"a number", "5", 12, nil, "5: --max-in-flight=5"},
		{"a number below the budget's", "1", 12, []limit{budget}, "1: --max-in-flight=1"},
		{"a number that the budget lowers", "5", 12, []limit{deployment, budget}, "2: poddisruptionbudget.policy/web: minAvailable 10 of 12 Pods, fewer than --max-in-flight=5"},
		{"a number equal to the workload's", "3", 12, []limit{deployment}, "3: --max-in-flight=3"},
		{"a percentage, rounded down", "25%", 14, nil, "3: --max-in-flight=25% of 14 replicas"},
		{"a percentage that the budget lowers", "25%", 14, []limit{budget}, "2: poddisruptionbudget.policy/web: minAvailable 10 of 12 Pods, fewer than --max-in-flight=25%"},
		{"a small percentage: at least one", "1%", 12, nil, "1: --max-in-flight=1% of 12 replicas"},
		{"zero", "0", 12, nil, "--max-in-flight=0: give a number of Pods, at least 1, or a percentage of the replicas, such as 25%"},
		{"not a number", "many", 12, nil, "--max-in-flight=many: give a number of Pods, at least 1, or a percentage of the replicas, such as 25%"},
		{"zero percent", "0%", 12, nil, "--max-in-flight=0%: give a number of Pods, at least 1, or a percentage of the replicas, such as 25%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := chooseMaxInFlight(tc.flag, tc.replicas, tc.limits)
			got := l.String()
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A run keeps to the PodDisruptionBudgets that select its Pods, and to its
// workloads' limits, whatever --max-in-flight says: the flag can only lower
// them.
func TestLimitKeepsToBudgetsWithMaxInFlight(t *testing.T) {
	pods := namedPods("a", "b", "c", "d")
	for _, p := range pods {
		p.Labels = map[string]string{"app": "web"}
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			MinAvailable: ptr.To(intstr.FromInt32(3)),
		},
	}
	for flag, want := range map[string]string{
		"":    "1: poddisruptionbudget.policy/web: minAvailable 3 of 4 Pods",
		"50%": "1: poddisruptionbudget.policy/web: minAvailable 3 of 4 Pods, fewer than --max-in-flight=50%",
		"1":   "1: --max-in-flight=1",
	} {
		o := &changeOptions{clients: clients{client: fake.NewClientset(pdb, pods[0], pods[1], pods[2], pods[3]), namespace: "ns"}, maxInFlight: flag, report: &reporter{errOut: io.Discard}}
		tg := &targets{pods: pods, floors: []*workloadFloor{{floor: newFloor("", limit{}, 4, pods)}}}
		largest, _, err := o.limit(context.Background(), tg)
		if l := tg.floors[0].floor.limit; err != nil || l.String() != want || largest != l.n {
			t.Errorf("--max-in-flight=%q: limit %q, largest batch %d, %v; want %q", flag, l.String(), largest, err, want)
		}
	}
}

// Each workload of a run has its own limit: a PodDisruptionBudget lowers
// the limit of the workloads of the run's Pods that it selects, not
// another's; --max-in-flight=N% is of each one's replicas. The run's
// largest batch is the largest limit.
func TestChooseLimits(t *testing.T) {
	pods := readyPods([]string{"web-a", "web-b", "db-0"})
	pods[2].Labels = map[string]string{"app": "db"}
	budget := newFloor("", limit{n: 1, why: "poddisruptionbudget.policy/db: maxUnavailable 1 of 3 Pods"}, 3, pods[2:])
	for _, tc := range []struct {
		flag    string
		want    []string
		largest int
	}{
		{"", []string{"3: maxUnavailable 25% of deployment.apps/web's 12 replicas", "1: poddisruptionbudget.policy/db: maxUnavailable 1 of 3 Pods"}, 3},
		{"50%", []string{"3: maxUnavailable 25% of deployment.apps/web's 12 replicas, fewer than --max-in-flight=50%", "1: --max-in-flight=50% of 3 replicas"}, 3},
		{"2", []string{"2: --max-in-flight=2", "1: poddisruptionbudget.policy/db: maxUnavailable 1 of 3 Pods, fewer than --max-in-flight=2"}, 2},
	} {
		tg := &targets{pods: pods, floors: []*workloadFloor{
			{own: &limit{n: 3, why: "maxUnavailable 25% of deployment.apps/web's 12 replicas"}, floor: newFloor("deployment.apps/web", limit{}, 12, pods[:2])},
			{own: &limit{n: 2, why: "maxUnavailable 2 of statefulset.apps/db's 3 replicas"}, floor: newFloor("statefulset.apps/db", limit{}, 3, pods[2:])},
		}}
		largest, err := tg.chooseLimits(tc.flag, []floor{budget})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range tg.floors {
			got = append(got, w.floor.limit.String())
		}
		if !slices.Equal(got, tc.want) || largest != tc.largest {
			t.Errorf("--max-in-flight=%q: limits %q, largest batch %d; want %q and %d", tc.flag, got, largest, tc.want, tc.largest)
		}
	}
}

// The floors of the PodDisruptionBudgets that select any of the run's Pods
// count every Pod that they select, Ready and not terminating, of the Pods
// that their status expects, or, before it says, of the Pods they select.
func TestDisruptionFloors(t *testing.T) {
	pods := readyPods([]string{"a", "b", "c", "d"}, "c")
	for _, p := range pods {
		p.Labels = map[string]string{"app": "web"}
	}
	pods[3].DeletionTimestamp = ptr.To(metav1.Now())
	other := readyPods([]string{"db-0"})[0]
	other.Labels = map[string]string{"app": "db"}
	budget := func(name, app string, maxUnavailable int32, expected int32) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: policyv1.PodDisruptionBudgetSpec{
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				MaxUnavailable: ptr.To(intstr.FromInt32(maxUnavailable)),
			},
			Status: policyv1.PodDisruptionBudgetStatus{ExpectedPods: expected},
		}
	}
	for _, tc := range []struct {
		name     string
		expected int32
		want     string
	}{
		{"expected Pods in its status", 12, "2 of 12 Pods Ready, and at least 10 must stay Ready (poddisruptionbudget.policy/web: maxUnavailable 2 of 12 Pods)"},
		{"no expected Pods in its status yet: the Pods it selects but the terminating one", 0, "2 of 3 Pods Ready, and at least 1 must stay Ready (poddisruptionbudget.policy/web: maxUnavailable 2 of 3 Pods)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(budget("web", "web", 2, tc.expected), budget("db", "db", 1, 1), pods[0], pods[1], pods[2], pods[3], other)
			// The run's Pods are a and b; c and d count too.
			floors, err := disruptionFloors(context.Background(), client, "ns", pods[:2])
			if err != nil {
				t.Fatal(err)
			}
			if len(floors) != 1 || floors[0].String() != tc.want {
				t.Errorf("floors %v, want web's only: %s", floors, tc.want)
			}
		})
	}
}

// The run says its limit before the first change, each workload's when its
// Pods belong to several, and how many of the Pods that each one's floor
// counts are not Ready already: its Pods that the run does not change too,
// and those that are not there yet.
func TestReportBatches(t *testing.T) {
	web := limit{n: 3, why: "maxUnavailable 25% of deployment.apps/web's 12 replicas"}
	db := limit{n: 1, why: "maxUnavailable 1 of statefulset.apps/db's 3 replicas"}
	api := limit{n: 1, why: "maxUnavailable 1 of deployment.apps/api's 2 replicas"}
	for _, tc := range []struct {
		largest, maxBatch int
		floors            []floor
		want              string
	}{{
		largest: 3,
		floors:  []floor{newFloor("deployment.apps/web", web, 12, readyPods([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}))},
		want:    "batches: the first Pod alone, then up to 3 at a time: maxUnavailable 25% of deployment.apps/web's 12 replicas\n",
	}, {
		// A limit above the run's largest batch.
		largest: 3, maxBatch: 2,
		floors: []floor{newFloor("deployment.apps/web", web, 12, readyPods([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}))},
		want:   "batches: the first Pod alone, then up to 2 at a time: maxUnavailable 25% of deployment.apps/web's 12 replicas\n",
	}, {
		// Two workloads of one Pod at a time each: a batch can have one
		// of each.
		largest: 1,
		floors: []floor{
			newFloor("statefulset.apps/db", db, 3, readyPods([]string{"a", "b", "c"})),
			newFloor("deployment.apps/api", api, 2, readyPods([]string{"a", "b"})),
		},
		want: "batches: the first Pod alone, then of each workload at most its limit at a time, and out of readiness:\n" +
			"- statefulset.apps/db: 1: maxUnavailable 1 of statefulset.apps/db's 3 replicas\n" +
			"- deployment.apps/api: 1: maxUnavailable 1 of deployment.apps/api's 2 replicas\n",
	}, {
		// Limits that together allow more than the run's largest batch.
		largest: 3, maxBatch: 3,
		floors: []floor{
			newFloor("deployment.apps/web", web, 12, readyPods([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})),
			newFloor("deployment.apps/api", api, 2, readyPods([]string{"a", "b"})),
		},
		want: "batches: the first Pod alone, then of each workload at most its limit at a time, and out of readiness, and at most 3 Pods a batch in all:\n" +
			"- deployment.apps/web: 3: maxUnavailable 25% of deployment.apps/web's 12 replicas\n" +
			"- deployment.apps/api: 1: maxUnavailable 1 of deployment.apps/api's 2 replicas\n",
	}, {
		largest: 1,
		floors:  []floor{newFloor("statefulset.apps/db", db, 3, readyPods([]string{"a", "b"}, "b"))},
		want:    "batches: one Pod at a time: maxUnavailable 1 of statefulset.apps/db's 3 replicas; not Ready now: 2 of the 3 Pods that it counts, which count against it; the run's own change first\n",
	}, {
		largest: 3,
		floors: []floor{
			newFloor("deployment.apps/web", web, 12, readyPods([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})),
			newFloor("statefulset.apps/db", db, 3, readyPods([]string{"a", "b", "c"}, "b")),
			newFloor("", limit{n: 10, why: "the default, as neither the workload nor a PodDisruptionBudget sets a limit"}, 1, readyPods([]string{"bare"})),
		},
		want: "batches: the first Pod alone, then of each workload at most its limit at a time, and out of readiness:\n" +
			"- deployment.apps/web: 3: maxUnavailable 25% of deployment.apps/web's 12 replicas\n" +
			"- statefulset.apps/db: 1: maxUnavailable 1 of statefulset.apps/db's 3 replicas; not Ready now: 1 of the 3 Pods that it counts, which count against it; the run's own change first\n" +
			"- Pods of no workload: 10: the default, as neither the workload nor a PodDisruptionBudget sets a limit\n",
	}, {
		// A workload under another, that has a limit of its own, is
		// named with it.
		largest: 1,
		floors: []floor{
			newFloor("rollout.argoproj.io/app", limit{n: 1, why: "maxUnavailable 1 of deployment.apps/web's 4 replicas"}, 4, readyPods([]string{"a", "b", "c", "d"})),
			func() floor {
				f := newFloor("deployment.apps/web", limit{n: 1, why: "maxUnavailable 1 of deployment.apps/web's 4 replicas"}, 4, readyPods([]string{"a", "b", "c", "d"}))
				f.within = "rollout.argoproj.io/app"
				return f
			}(),
		},
		want: "batches: one Pod at a time, and of each workload at most its limit out of readiness:\n" +
			"- rollout.argoproj.io/app: 1: maxUnavailable 1 of deployment.apps/web's 4 replicas\n" +
			"- deployment.apps/web of rollout.argoproj.io/app: 1: maxUnavailable 1 of deployment.apps/web's 4 replicas\n",
	}} {
		var errOut bytes.Buffer
		most := tc.maxBatch
		if most == 0 {
			most = maxBatch
		}
		(&reporter{errOut: &errOut}).batches(tc.largest, most, tc.floors)
		if diff := cmp.Diff(tc.want, errOut.String()); diff != "" {
			t.Errorf("printed (-want +got):\n%s", diff)
		}
	}
}
