package probeplugin

import (
	"context"
	"slices"
	"time"

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
//
// and, once it ended, runner.afterRun (workloads.go) looks at the workloads
// of the Pods it changed again.

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
	// workload names the workload whose floor counts the Pod
	// (targets.floors); "" for the Pods of none.
	workload string
	// revision names the template that the Pod was made from
	// (revisionOf): with --wait=applied, a proof says something only of
	// the Pods of its own.
	revision string
	// container is the name of the container that the change is made to,
	// checked its state as the pre-check read it, and changes the types of
	// the probes that the change makes there.
	container string
	checked   containerState
	changes   []probeType
	// modified is pod with the change.
	modified *v1.Pod
	// stored is the Pod as the change stored it, then as --undo-on-failure
	// left it: as its put-back stored it, or read it, when it left the Pod
	// alone (leftAlone).
	stored *v1.Pod
	result result
	reason string
	cause  cause
	tried  map[probeType]tried
	// undone is set when the run put back the Pod's probes after its
	// change failed, or was interrupted, or found them put back by
	// someone else (putBackMeanwhile); kept when --undo-on-failure left
	// a failed relaxation, in whole or in part, since the old probes would
	// restart the container sooner or keep it out of readiness more
	// (stays).
	undone, kept bool
	// staying are the probes that --undo-on-failure left, or was to
	// leave, since the change only relaxed them, and why (stays): kubectl
	// probe undo of the run puts them back too.
	staying map[probeType]string
	// undoUnknown is set when whether --undo-on-failure's put-back was
	// stored is unknown (outcomeUnknownError); leftAlone when the put-back
	// left the Pod as it is, since someone else changed its probes after
	// its change, as kubectl probe undo of the run would too (leftAlone),
	// and its change may stand under theirs; and recordReplaced too when
	// its probes were as the change stored them, and only its record of
	// the run was replaced (replacedRecord), its change standing.
	undoUnknown, leftAlone, recordReplaced bool
	// interrupted is set for a change in flight that an interrupt ended
	// before it was proven (--undo-on-failure).
	interrupted bool
	// gone is set for a Pod deleted or recreated after its change.
	gone bool
	// unknown is set for a Pod whose change may have been stored: the
	// answer to its patch was lost, and it could not be read again.
	unknown bool
	// waited is set for a Pod whose change was waited on to the end, on
	// its node.
	waited bool
}

// changed says whether the run left the Pod with its change.
func (pr *podRun) changed() bool {
	return pr.result == resultChanged || pr.stored != nil && pr.result != resultUnchanged && !pr.undone && !pr.gone
}

// refuse sets the result of a Pod that cannot take the change, from the
// error's cause: skipped when the Pod has left or is leaving, failed
// otherwise.
func (pr *podRun) refuse(err error) {
	pr.cause = causeOf(err)
	if pr.cause.skip != "" {
		pr.result, pr.reason = resultSkipped, pr.cause.skip
		return
	}
	pr.result, pr.reason = resultFailed, pr.cause.text
}

// runner carries out a change (set, disable, restore) on the target Pods.
type runner struct {
	patcher   *patcher
	change    change
	container string // -c
	// templates, when set, finds the templates that restore compares with.
	templates *templates
	// dryRun is "", "client" or "server".
	dryRun string
	// nodes, when set, tells the nodes that are not Ready, whose Pods the
	// pre-check skips when the run waits on its changes.
	nodes *nodeReadiness
	// wait is what the run waits for after each change, as --wait says, in
	// a dry run too, which waits on none: waitProven, waitApplied or
	// waitNone.
	wait string
	// largest is the largest limit of the run's workloads, as last read,
	// each of which it takes no more of out of readiness at once (see
	// nextBatch), nor more of in a batch (limitOf); maxBatch, when set, is
	// the most Pods of a batch of all of them together.
	largest, maxBatch int
	// census reads the Pods of the run and of their workloads, and the
	// workloads, as they are now, before a batch (see nextBatch): it
	// returns the Pods, the floors of those workloads, which count them,
	// with their limits chosen again with the floors of the budgets just
	// read, and the largest limit. counted are the Pods as last read, at
	// first as the run's targets were.
	census  func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error)
	counted []*v1.Pod
	// budgets, when set, reads the floors of the PodDisruptionBudgets that
	// select the run's Pods again, before the census; floors are the
	// floors of the workloads and of the budgets as last read.
	budgets func(ctx context.Context) ([]floor, error)
	floors  []floor
	// prove, when set, proves each change (--wait=proven, and the first
	// Pods of each template with --wait=applied): prover.prove. applied,
	// when set, waits on the changes after them only until the kubelet
	// applied them (--wait=applied): prover.applied.
	prove, applied func(ctx context.Context, before, stored *v1.Pod, container string) (string, error)
	// waitTimeout is how long the run waits for a Pod: --wait-timeout.
	waitTimeout   time.Duration
	prober        prober // nil with --skip-check
	undoOnFailure bool
	// owners walks from the Pods that the run changed to their workloads,
	// which the run looks at again when it ends (afterRun).
	owners *owners
	// cmdline is what the commands that the run prints carry over.
	cmdline *commandLine
	report  *reporter

	// runs are the Pods of the last run.
	runs []*podRun
	// saidRelaxes is set once the run said that the floors do not hold
	// back a relaxation.
	saidRelaxes bool
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
		pr := &podRun{pod: pod, workload: t.workloadOf(pod), revision: revisionOf(pod)}
		runs = append(runs, pr)
		active = append(active, pr)
	}
	r.runs = runs
	r.counted = t.pods
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
