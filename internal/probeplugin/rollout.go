package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubectl/pkg/util/podutils"
)

// rollout is the run's third stage: it changes the Pods of todo as
// progressive delivery does, the first Pod alone, then in batches that
// double up to the run's limit, each started only when every change of the
// one before it is proven (prove.go): a wrong probe reaches one Pod, and a
// right one is on every Pod after a few failure windows. A change can take
// a Pod out of readiness, so no batch takes the Ready Pods below a floor:
// each workload's, its replicas less its limit, of all of its Pods, and
// each PodDisruptionBudget's, of every Pod it selects; counting the Pods
// that are not Ready for other reasons: those of the run change first,
// since changing them takes no Pod out (see nextBatch). It stops after the
// batch in which a Pod failed.
// runs are all the Pods of the run, for the end of it.
//
// ctx ending is an interrupt (SIGINT, SIGTERM): no Pod changes after it.
// The changes in flight are proven to the end, or, with --undo-on-failure,
// put back at once; their requests are never cut off halfway. Every Pod
// changed keeps what the change replaced (record.go), and the run prints
// the undo that puts the Pods it changed back.
func (r *runner) rollout(ctx context.Context, runs, todo []*podRun) error {
	if r.dryRun != "" {
		for _, pr := range todo {
			pr.result, pr.stored = resultChanged, pr.modified
			r.report.pod(pr)
		}
		return nil
	}
	work := context.WithoutCancel(ctx)
	proofs := work
	if r.undoOnFailure {
		proofs = ctx
	}
	mode := waitProven
	switch {
	case r.prove == nil:
		mode = waitNone
	case r.applied != nil:
		mode = waitApplied
	}
	var inFlight atomic.Int32
	said := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		r.report.interrupted(int(inFlight.Load()), r.undoOnFailure, mode, r.cmdline)
		close(said)
	})
	var (
		failed  *podRun
		stopped error
		left    = todo
		// proven is set once a Pod's change was proven: with
		// --wait=applied, the Pods after it are waited on only until
		// their kubelets applied theirs.
		proven bool
	)
	for size := 1; len(left) > 0 && ctx.Err() == nil; {
		batch, err := r.nextBatch(ctx, left, size)
		if err != nil {
			if ctx.Err() == nil {
				stopped = err
			}
			break
		}
		// A first Pod is proven with --wait=applied too, until one is
		// (with --wait=none, r.prove is nil: no Pod is).
		wait := r.prove
		if r.applied != nil && proven {
			wait = r.applied
		}
		left = slices.DeleteFunc(slices.Clone(left), func(pr *podRun) bool { return slices.Contains(batch, pr) })
		var wg sync.WaitGroup
		for _, pr := range batch {
			wg.Go(func() {
				inFlight.Add(1)
				defer inFlight.Add(-1)
				if ctx.Err() == nil {
					r.one(work, proofs, pr, wait)
				}
			})
		}
		wg.Wait()
		proven = proven || slices.ContainsFunc(batch, func(pr *podRun) bool { return pr.waited })
		if i := slices.IndexFunc(batch, func(pr *podRun) bool { return pr.result == resultFailed }); i >= 0 {
			failed = batch[i]
			break
		}
		// Twice the size asked for, not the batch taken: the floor that
		// made a batch smaller counts the Pods out of readiness now, and
		// says nothing of the change; it still bounds the next batch.
		size = min(2*size, r.largest)
	}
	// What the run does about an interrupt is said before how it ended.
	interrupted := !stop()
	if interrupted {
		<-said
	}
	if failed == nil && stopped == nil && !interrupted {
		for _, pr := range runs {
			if pr.result == resultChanged || pr.result == resultUnchanged {
				return nil
			}
		}
		return errors.New("no Pod was changed: each one was skipped")
	}
	var done, failures, putBack, rest []*podRun
	for _, pr := range todo {
		switch {
		case pr.result == resultChanged:
			done = append(done, pr)
		case pr.result == resultFailed:
			failures = append(failures, pr)
		case pr.interrupted:
			putBack = append(putBack, pr)
		case pr.result == "":
			pr.result = resultSkipped
			switch {
			case interrupted:
				pr.reason = "not changed: the run was interrupted"
			case stopped != nil:
				pr.reason = "not changed: the run stopped before its batch"
			default:
				pr.reason = "not changed: the run stopped at pod/" + failed.pod.Name
			}
			rest = append(rest, pr)
		}
	}
	status := errReported
	switch {
	case interrupted:
		status = reportedStatus(exitInterrupted)
	case slices.ContainsFunc(todo, func(pr *podRun) bool { return pr.changed() || pr.unknown }):
		status = reportedStatus(exitStopped)
	}
	if len(todo) == 1 && failed != nil && !interrupted {
		return status
	}
	title := "stopped at the first Pod that failed"
	switch {
	case interrupted:
		title = "interrupted"
	case stopped != nil:
		title = stopped.Error()
	}
	r.report.finished(title, done, failures, putBack, rest, r.cmdline)
	return status
}

// floorPoll is how often nextBatch reads the Pods again while it waits for
// enough of them to be Ready.
const floorPoll = 2 * time.Second

// nextBatch returns the next batch, of at most size Pods of left: first the
// Pods that are not Ready, since changing them takes no Pod out of
// readiness, then as many Ready ones as keep every floor: each workload's,
// its replicas less its limit, of all of its Pods, and each
// PodDisruptionBudget's, of every Pod that the budget selects (see floor);
// of each, first those whose proof can begin soonest (provenSooner). A run
// that waits on its changes reads its Pods and the floors before each
// batch (census, budgets), the first one too: the pre-check and its
// confirmation take a while, and a crash-looping container changes its
// state every few seconds. A run that does not (--wait=none), whose
// batches follow each other at once, counts them as last read, and reads
// them again only when that count holds the batch back. When it may take
// none, it waits for Pods to turn Ready, reading them every floorPoll, for
// as long as a run waits for a Pod (--wait-timeout), and then says why the
// run stops: --wait=none too, since the Pods it changed while they were
// not Ready may turn Ready, which is what a change in a crash loop is for.
func (r *runner) nextBatch(ctx context.Context, left []*podRun, size int) ([]*podRun, error) {
	var waitUntil time.Time
	for read := r.prove != nil; ; read = true {
		if read {
			pods, floors, err := r.census(ctx)
			if err == nil && r.budgets != nil {
				var budgets []floor
				budgets, err = r.budgets(ctx)
				floors = append(floors, budgets...)
			}
			if err != nil {
				return nil, fmt.Errorf("stopped before the next batch: cannot count the Ready Pods: %w", err)
			}
			r.counted, r.floors = pods, floors
			// Each Pod is patched as it was read now: as the pre-check
			// read it, long before a later batch, a crash-looping one has
			// changed since, at each restart, and its patch, conditioned
			// on its resourceVersion, would conflict, and cost a read and
			// a second patch.
			now := map[types.UID]*v1.Pod{}
			for _, pod := range pods {
				now[pod.UID] = pod
			}
			for _, pr := range left {
				if pod := now[pr.pod.UID]; pod != nil {
					pr.pod = pod
				}
			}
		}
		ready := map[types.UID]bool{}
		for _, pod := range r.counted {
			if podutils.IsPodReady(pod) {
				ready[pod.UID] = true
			}
		}
		floors := slices.Clone(r.floors)
		var batch, readyOnes []*podRun
		for _, pr := range slices.SortedStableFunc(slices.Values(left), provenSooner) {
			switch {
			case ready[pr.pod.UID]:
				readyOnes = append(readyOnes, pr)
			case len(batch) < size:
				batch = append(batch, pr)
			}
		}
		why := ""
		for _, pr := range readyOnes {
			if len(batch) == size {
				break
			}
			if held := takeOut(floors, pr.pod); held != nil {
				why = cmp.Or(why, held.String())
				continue
			}
			batch = append(batch, pr)
		}
		if len(batch) > 0 {
			return batch, nil
		}
		if !read {
			continue
		}
		switch {
		case r.waitTimeout > 0 && !waitUntil.IsZero() && !time.Now().Before(waitUntil):
			return nil, errors.New("stopped before the next batch: " + why)
		case waitUntil.IsZero():
			waitUntil = time.Now().Add(r.waitTimeout)
			r.report.waitingForReady(why)
		}
		select {
		case <-time.After(floorPoll):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeOut counts a Ready Pod out of each floor that counts it, and returns
// nil; or, when that would take one of them below its least, leaves them as
// they are, and returns that one.
func takeOut(floors []floor, pod *v1.Pod) *floor {
	for i := range floors {
		if floors[i].pods[pod.UID] && floors[i].ready <= floors[i].least() {
			return &floors[i]
		}
	}
	for i := range floors {
		if floors[i].pods[pod.UID] {
			floors[i].ready--
		}
	}
	return nil
}

// provenSooner orders Pods by how soon the new probes of their container
// can be proven, from when it runs: a running container first, then
// crash-looping ones by the end of the kubelet's back-off, then the others,
// whose next start their status does not tell. So the first Pod, proven
// whatever --wait says, is not one that waits out a long back-off while
// another could be proven at once.
func provenSooner(a, b *podRun) int {
	rankA, fromA := runsFrom(a)
	rankB, fromB := runsFrom(b)
	return cmp.Or(cmp.Compare(rankA, rankB), fromA.Compare(fromB))
}

// runsFrom ranks a Pod for provenSooner: 0 for a running container, 1 and
// the end of its back-off for a crash-looping one, 2 for another.
func runsFrom(pr *podRun) (int, time.Time) {
	status := containerStatus(pr.pod, pr.container)
	if status != nil && status.State.Running != nil {
		return 0, time.Time{}
	}
	if _, ends, ok := inBackOff(status); ok {
		return 1, ends
	}
	return 2, time.Time{}
}

// one changes a Pod, and waits on the change with wait, when set: the wait
// ends with proofs, the requests with ctx. The Pod's result says how it
// went. A Pod whose container someone else changed since the pre-check is
// left as it is (unchangedSince). A Pod whose change may have been stored
// (outcomeUnknownError) fails, and the run prints how to put it back.
func (r *runner) one(ctx, proofs context.Context, pr *podRun, wait func(ctx context.Context, before, stored *v1.Pod, container string) (string, error)) {
	res, err := r.patcher.apply(ctx, pr.pod, pr.container, unchangedSince{change: r.change, types: pr.changes, checked: pr.checked}, pr.template, false)
	var unknown *outcomeUnknownError
	if errors.As(err, &unknown) {
		pr.result, pr.reason, pr.unknown = resultFailed, err.Error(), true
		r.report.failed(pr, cause{text: pr.reason})
		r.report.unknown(pr, r.cmdline)
		return
	}
	if err != nil {
		if pr.refuse(err); pr.result == resultSkipped {
			r.report.pod(pr)
		} else {
			r.report.failed(pr, pr.cause)
		}
		return
	}
	pr.pod, pr.stored = res.read, res.stored
	if !res.changed {
		pr.result = resultUnchanged
		r.report.pod(pr)
		return
	}
	pr.result = resultChanged
	r.report.pod(pr)
	if wait == nil {
		return
	}
	proven, err := wait(proofs, res.read, res.stored, pr.container)
	var gone *podGoneError
	switch {
	case errors.As(err, &gone):
		pr.result, pr.reason, pr.gone = resultSkipped, "changed, then "+gone.reason, true
		r.report.gone(pr, gone.reason)
		return
	case err != nil && proofs.Err() != nil:
		// Interrupted, with --undo-on-failure.
		pr.result, pr.reason, pr.interrupted = resultFailed, "changed, then interrupted before it was proven", true
		r.undo(ctx, pr)
		if pr.undone {
			pr.result = resultSkipped
		}
		return
	case err != nil:
		pr.result, pr.reason = resultFailed, "changed, but "+err.Error()
		r.report.failed(pr, cause{text: pr.reason})
		r.undo(ctx, pr)
		return
	}
	pr.waited = proven != notOnANode
	r.report.proven(pr, proven)
}

// undo puts back the probes of a Pod whose change failed, or was
// interrupted, with --undo-on-failure, and otherwise prints the command that
// does. It never puts back probes that would restart the container sooner
// than the new ones (restartsSooner): a relaxed probe that failed its proof
// is still the lesser evil.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	if !r.undoOnFailure {
		r.report.undoHint(pr, r.cmdline)
		return
	}
	if why := restartsSooner(probesOf(pr.pod, pr.container), probesOf(pr.stored, pr.container), !pr.interrupted); why != "" {
		pr.reason += "; not undone: the old probes would restart the container sooner"
		r.report.notUndone(pr, why, r.cmdline)
		return
	}
	res, err := r.patcher.apply(ctx, pr.stored, pr.container, undoChange{original: pr.pod, changed: pr.stored}, nil, false)
	if err != nil {
		r.report.undoFailed(pr, err)
		return
	}
	pr.stored, pr.undone = res.stored, true
	pr.reason += "; undone"
	r.report.undone(pr)
}

// restartsSooner says how the old probes would restart the container
// sooner than the new ones, or "" when they would not. After a failed
// proof, only probes that ask what the new ones ask (the same handler) are
// weighed so: a new handler that failed is put back whatever its timing. A
// liveness probe would when the new one is not there, or waits longer
// after the container starts, allows more seconds of failures in a row, or
// waits longer for an answer. A startup probe would when it does so of the
// new startup probe, or, where either has none, when it gives a starting
// container less time before a restart: without a startup probe, the
// liveness probe runs from the container's start.
func restartsSooner(was, now map[probeType]*v1.Probe, failed bool) string {
	weighed := func(old, new *v1.Probe) bool {
		return !failed || apiequality.Semantic.DeepEqual(old.ProbeHandler, new.ProbeHandler)
	}
	switch {
	case was[startup] != nil && now[startup] != nil:
		if !weighed(was[startup], now[startup]) {
			break
		}
		if why := probeSooner(was[startup], now[startup]); why != "" {
			return "the startup probe: " + why
		}
	case was[startup] != nil || now[startup] != nil:
		// What checks a starting container, before and after.
		if o, n := cmp.Or(was[startup], was[liveness]), cmp.Or(now[startup], now[liveness]); o == nil || n != nil && !weighed(o, n) {
			break
		}
		old, _ := startLimit(was)
		if n, newLimited := startLimit(now); !newLimited || old < n {
			limit := "none"
			if newLimited {
				limit = fmt.Sprintf("%ds", n)
			}
			return fmt.Sprintf("a starting container gets %ds before a restart, with the new probes %s", old, limit)
		}
	}
	switch {
	case was[liveness] == nil:
	case now[liveness] == nil:
		return "the change removed the liveness probe"
	case weighed(was[liveness], now[liveness]):
		if why := probeSooner(was[liveness], now[liveness]); why != "" {
			return "the liveness probe: " + why
		}
	}
	return ""
}

// probeSooner says how the probe was would restart the container sooner
// than now, or "".
func probeSooner(was, now *v1.Probe) string {
	o, n := withDefaults(was), withDefaults(now)
	if o.InitialDelaySeconds < n.InitialDelaySeconds || o.FailureThreshold*o.PeriodSeconds < n.FailureThreshold*n.PeriodSeconds || o.TimeoutSeconds < n.TimeoutSeconds {
		return fmt.Sprintf("initialDelaySeconds %ds, failureThreshold × periodSeconds %d×%ds, timeout %ds; the new one %ds, %d×%ds, timeout %ds",
			o.InitialDelaySeconds, o.FailureThreshold, o.PeriodSeconds, o.TimeoutSeconds, n.InitialDelaySeconds, n.FailureThreshold, n.PeriodSeconds, n.TimeoutSeconds)
	}
	return ""
}

// startLimit is how long a container that does not start gets before a
// restart: the startup probe's delay and failures in a row, or, without
// one, the liveness probe's; limited is false when it has neither.
func startLimit(probes map[probeType]*v1.Probe) (seconds int32, limited bool) {
	p := cmp.Or(probes[startup], probes[liveness])
	if p == nil {
		return 0, false
	}
	d := withDefaults(p)
	return d.InitialDelaySeconds + d.FailureThreshold*d.PeriodSeconds, true
}

// withDefaults returns the probe's timing with the API's defaults for the
// fields that are not set.
func withDefaults(p *v1.Probe) v1.Probe {
	return v1.Probe{
		InitialDelaySeconds: p.InitialDelaySeconds,
		TimeoutSeconds:      cmp.Or(p.TimeoutSeconds, 1),
		PeriodSeconds:       cmp.Or(p.PeriodSeconds, 10),
		FailureThreshold:    cmp.Or(p.FailureThreshold, 3),
	}
}
