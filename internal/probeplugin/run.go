package probeplugin

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// A run is what set, disable and restore do to the Pods that a command
// names. It goes through five stages, each in a file of its own with one
// entry, and each of them decides only: what a run prints, as it happens
// and at its end, is in report.go.
//
//	targets    targets.go   resolveTargets: the Pods the command line names
//	pre-check  precheck.go  runner.precheck: every Pod checked before the first change
//	change     rollout.go   runner.rollout: the Pods changed, each change confirmed before the next
//	prove      prove.go     prover.prove: a change proven on its Pod
//	report     report.go    reporter: what the run did

// result is what a run did to a Pod.
type result string

const (
	resultChanged   result = "changed"
	resultUnchanged result = "unchanged"
	resultSkipped   result = "skipped"
	resultFailed    result = "failed"
)

// podRun is one Pod's way through a run.
type podRun struct {
	// pod is the Pod as last read.
	pod      *v1.Pod
	template *podTemplate
	// container is the name of the container that the change is made to.
	container string
	// modified is pod with the change.
	modified *v1.Pod
	// stored is the Pod as the change stored it.
	stored *v1.Pod
	result result
	reason string
	cause  cause
	tried  map[probeType]tried
	// undone is set when the run put back the Pod's probes after its
	// change failed, or was interrupted.
	undone bool
	// interrupted is set for a change in flight that an interrupt ended
	// before it was proven (--undo-on-failure).
	interrupted bool
	// gone is set for a Pod deleted or recreated after its change.
	gone bool
}

// changed says whether the run left the Pod with its change.
func (pr *podRun) changed() bool {
	return pr.result == resultChanged || pr.stored != nil && pr.result != resultUnchanged && !pr.undone && !pr.gone
}

// runner carries out a change (set, disable, restore) on the target Pods.
type runner struct {
	patcher   *patcher
	change    change
	container string // -c
	// templates, when set, finds the templates that restore compares with.
	templates *templates
	// dryRun is "", "client" or "server".
	dryRun      string
	maxInFlight int
	// prove, when set, proves each change (--wait): prover.prove.
	prove         func(ctx context.Context, before, stored *v1.Pod, container string) (string, error)
	prober        prober // nil with --skip-check
	undoOnFailure bool
	// undo is the command that puts back what the run changed; none for a
	// run of kubectl probe undo.
	undoCmd *undoCommand
	report  *reporter

	// runs are the Pods of the last run.
	runs []*podRun
}

// changed says whether the last run changed a Pod.
func (r *runner) changed() bool {
	return slices.ContainsFunc(r.runs, func(pr *podRun) bool { return pr.result == resultChanged })
}

// run changes the Pods of t: the pre-check of every Pod, then the changes.
// It returns errReported when it printed why it failed.
func (r *runner) run(ctx context.Context, t *targets) error {
	var runs, active []*podRun
	for _, s := range t.skipped {
		runs = append(runs, &podRun{pod: s.pod, result: resultSkipped, reason: s.reason})
	}
	for _, pod := range t.pods {
		pr := &podRun{pod: pod}
		runs = append(runs, pr)
		active = append(active, pr)
	}
	r.runs = runs
	defer func() { r.report.results(runs) }()
	for _, pr := range runs {
		if pr.result == resultSkipped {
			r.report.pod(pr)
		}
	}
	todo, err := r.precheck(ctx, active)
	if err != nil {
		return err
	}
	return r.rollout(ctx, runs, todo)
}
