package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/kubectl/pkg/util/podutils"
)

// rollout is the run's third stage: it changes the Pods of todo as
// progressive delivery does, the first Pod alone, then in batches, each
// started only when every change of the one before it is proven
// (prove.go): a wrong probe reaches one Pod, and a right one is on every
// Pod after a few failure windows. Each workload has its canary: until the
// change of one of its Pods is proven, its Pods go one at a time; and its
// own share of each batch, which doubles with each batch that it is in, up
// to its limit, whatever the other workloads of the run do. With
// --wait=applied, the Pods made from each template (revisionOf), which the
// Pods of one workload do not all share mid-rollout, are proven until each
// new probe that their proofs would test (testedProbes) was tested on one
// of them; a Pod of no controller, which shares its template with no
// other, is proven. A change can take
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
	// inFlight counts the Pods whose changes began before the interrupt;
	// changed is set once a Pod changed, or may have.
	var (
		mu       sync.Mutex
		inFlight int
		changed  bool
	)
	said := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		n, undo := inFlight, changed || inFlight > 0
		mu.Unlock()
		r.report.interrupted(n, undo, r.undoOnFailure, r.wait, r.cmdline)
		close(said)
	})
	var (
		failed  *podRun
		stopped error
		left    = todo
		// proven holds the workloads that a Pod's proven change
		// (podRun.waited) is the canary of: their batches grow after it.
		proven = map[string]bool{}
		// With --wait=applied, provenRevisions holds the templates
		// (podRun.revision) of which a Pod's change was proven, and
		// tested, of each, the new probes that those proofs tested
		// (testedProbes): a Pod of a template in provenRevisions whose
		// proof would test none other is waited on only until its kubelet
		// applied the change, and another is proven, as with
		// --wait=proven.
		provenRevisions = map[string]bool{}
		tested          = map[string]map[probeType]bool{}
	)
	// sizes are how many Pods of each workload a batch takes, as asked:
	// 1 at first, its canary.
	sizes := map[string]int{}
	for first := true; len(left) > 0 && ctx.Err() == nil; first = false {
		batch, err := r.nextBatch(ctx, left, first, sizes, proven)
		// A Pod that nextBatch skipped has its result.
		left = slices.DeleteFunc(slices.Clone(left), func(pr *podRun) bool { return pr.result != "" })
		if err != nil {
			if ctx.Err() == nil {
				stopped = err
			}
			break
		}
		// Whether the batch begins, as a whole, and the count in flight,
		// are one step: an interrupt that comes as it begins counts every
		// Pod of it in flight, or stops all of them, never some.
		mu.Lock()
		begins := ctx.Err() == nil
		if begins {
			inFlight += len(batch)
		}
		mu.Unlock()
		if !begins {
			break
		}
		left = slices.DeleteFunc(left, func(pr *podRun) bool { return slices.Contains(batch, pr) })
		var wg sync.WaitGroup
		// applied holds the Pods of the batch that are waited on only
		// until their kubelets applied the change.
		applied := map[*podRun]bool{}
		for _, pr := range batch {
			// The first Pod of each template is proven with
			// --wait=applied too (with --wait=none, r.prove is nil: no
			// Pod is). A Pod of no controller shares no template with
			// another: it is proven.
			wait := r.prove
			if rev := pr.revision; r.applied != nil && rev != "" && provenRevisions[rev] && !slices.ContainsFunc(testedProbes(pr.pod, pr.modified, pr.container), func(t probeType) bool { return !tested[rev][t] }) {
				wait, applied[pr] = r.applied, true
			}
			wg.Go(func() {
				r.one(work, proofs, pr, wait)
				mu.Lock()
				inFlight--
				changed = changed || pr.changed() || pr.unknown
				mu.Unlock()
			})
		}
		wg.Wait()
		for _, pr := range batch {
			proven[pr.workload] = proven[pr.workload] || pr.waited
			rev := pr.revision
			if r.applied == nil || !pr.waited || applied[pr] {
				continue
			}
			provenRevisions[rev] = true
			if tested[rev] == nil {
				tested[rev] = map[probeType]bool{}
			}
			for _, t := range testedProbes(pr.pod, pr.stored, pr.container) {
				tested[rev][t] = true
			}
		}
		if i := slices.IndexFunc(batch, func(pr *podRun) bool { return pr.result == resultFailed }); i >= 0 {
			failed = batch[i]
			break
		}
		// Of each workload in the batch, twice the share asked for, not
		// the share taken: the floor that made it smaller counts the Pods
		// out of readiness now, and says nothing of the change; it still
		// bounds the next batch.
		grown := map[string]bool{}
		for _, pr := range batch {
			if w := pr.workload; !grown[w] {
				grown[w] = true
				sizes[w] = min(2*max(sizes[w], 1), r.limitOf(w))
			}
		}
	}
	// What the run does about an interrupt is said before how it ended.
	// An interrupt that left no Pod out, as one during the last batch,
	// which was waited on to the end, ends a run that did what it was
	// asked.
	fired := !stop()
	if fired {
		<-said
	}
	interrupted := fired && (len(left) > 0 || slices.ContainsFunc(todo, func(pr *podRun) bool { return pr.interrupted }))
	if failed == nil && stopped == nil && !interrupted {
		for _, pr := range runs {
			if pr.result == resultChanged || pr.result == resultUnchanged {
				return nil
			}
		}
		// Skipped before its change, or during its proof, as deleted or
		// recreated (podRun.gone): either leaves no change of the run. Of
		// an undo, that is said of the undo, not of the run it undoes.
		if _, ok := r.change.(undoRun); ok {
			return errors.New("no put-back of this undo stands: each Pod was skipped, or put back and then deleted or recreated")
		}
		return errors.New("no change of the run stands: each Pod was skipped, or changed and then deleted or recreated")
	}
	var done, failures, putBack, skipped, rest []*podRun
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
		default:
			// Skipped during the run: deleted or recreated, during its
			// proof or before its patch, or left as it is, as someone
			// else changed its probes since the pre-check, or its node is
			// not Ready, say; or unchanged, as asked already.
			skipped = append(skipped, pr)
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
		// The Pod's lines said what failed; a run of undo that left the
		// run it undoes to undo on the Pod (its change not stored, or
		// put back, or either's outcome not known) still says how to
		// finish it.
		if failed.unknown || failed.undoUnknown || failed.stored == nil || leftToUndo(failed.stored) {
			r.report.warnf("%s", r.cmdline.finishing())
		}
		return status
	}
	title := "stopped at the first Pod that failed"
	switch {
	case interrupted:
		title = "interrupted"
	case stopped != nil:
		title = stopped.Error()
	}
	r.report.finished(title, done, failures, putBack, skipped, rest, r.cmdline)
	return status
}

// maxBatch is the most Pods that a batch changes, of all the run's
// workloads together, whatever their limits allow: each Pod in flight holds
// a watch of it, and of its events, open on the API server until it is
// proven.
const maxBatch = 100

// floorPoll is how often nextBatch reads the Pods again while it waits for
// enough of them to be Ready.
const floorPoll = 2 * time.Second

// limitOf is the most Pods of the workload, by name, that a batch takes:
// the limit of its floor, which chooseLimits chose, as the workload was
// last read, or else the largest limit of the run's workloads.
func (r *runner) limitOf(workload string) int {
	for _, f := range r.floors {
		if f.name == workload && f.within == "" && !f.budget {
			return f.limit.n
		}
	}
	return max(r.largest, 1)
}

// nextBatch returns the next batch of Pods of left, one Pod when it is the
// run's first, and of each workload at most its share, sizes (1 when they
// do not say, and at most its limit), and of all at most r.maxBatch: first
// the Pods that are not Ready, since changing them takes no Pod out of
// readiness, then as many Ready ones as keep every floor: each workload's,
// its replicas less its limit, of all of its Pods, and each
// PodDisruptionBudget's, of every Pod that the budget selects (see floor);
// of each, first those whose proof can begin soonest (provenSooner). A
// change that only relaxes liveness and startup probes passes the floors,
// and keeps to its workload's share. Of a workload that is not proven yet,
// a run that proves its changes takes one Pod, its canary. A run that waits
// on its changes reads its Pods, their workloads and the floors before each
// batch (census, budgets), the first one too: the pre-check and its
// confirmation take a while, a crash-looping container changes its state
// every few seconds, and an autoscaler may scale a workload, whose floor
// and limit then follow its replicas now. Of the Pods that are not Ready,
// it skips those whose node is not Ready as it reads them again, as the
// pre-check does, since a node may stop reporting during a long run; when
// it skips every Pod left, the batch is empty. A run that does not wait
// (--wait=none), whose batches follow each other at once, counts them as
// last read, less the Ready Pods that its batches took out since, and reads
// them again only when that count holds the batch back. When it may take
// none, it waits for Pods to turn Ready, reading them every floorPoll, for
// as long as a run waits for a Pod (--wait-timeout), and then says why the
// run stops: --wait=none too, since the Pods it changed while they were not
// Ready may turn Ready, which is what a change in a crash loop is for.
func (r *runner) nextBatch(ctx context.Context, left []*podRun, first bool, sizes map[string]int, proven map[string]bool) ([]*podRun, error) {
	var waitUntil time.Time
	for read := r.prove != nil; ; read = true {
		if read {
			var (
				pods   []*v1.Pod
				floors []floor
				// largest is the largest limit of the workloads, which
				// the census chooses again with the budgets.
				largest int
			)
			// A read that fails now and then, as lists do on a busy API
			// server, is tried again: it does not stop a long run.
			err := retry.OnError(retry.DefaultBackoff, func(error) bool { return ctx.Err() == nil }, func() error {
				var (
					budgets []floor
					err     error
				)
				if r.budgets != nil {
					if budgets, err = r.budgets(ctx); err != nil {
						return err
					}
				}
				if pods, floors, largest, err = r.census(ctx, budgets); err != nil {
					return err
				}
				floors = append(floors, budgets...)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("stopped before the next batch: cannot count the Ready Pods: %w", err)
			}
			r.counted, r.floors, r.largest = pods, floors, largest
			r.nodes.forget()
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
		var (
			batch, readyOnes []*podRun
			taken            = map[string]int{}
		)
		// room says whether the batch has room for the Pod: the run's first
		// Pod goes alone; a workload's share, at most its limit as last
		// read, which the census may have lowered since the share grew,
		// and its canary, which goes without others of its workload until
		// one of its Pods is proven.
		room := func(pr *podRun) bool {
			w := pr.workload
			switch {
			case first && len(batch) > 0, taken[w] >= min(max(sizes[w], 1), r.limitOf(w)), r.maxBatch > 0 && len(batch) >= r.maxBatch:
				return false
			}
			return r.prove == nil || proven[w] || taken[w] == 0
		}
		take := func(pr *podRun) {
			batch = append(batch, pr)
			taken[pr.workload]++
		}
		for _, pr := range slices.SortedStableFunc(slices.Values(left), provenSooner) {
			switch {
			case pr.result != "":
				// Skipped at an earlier read.
			case ready[pr.pod.UID]:
				readyOnes = append(readyOnes, pr)
			case !room(pr):
			case read && r.skipOnNodeNotReady(ctx, pr):
				// Its node stopped reporting since the pre-check read it,
				// and the node controller then marked the Pod not Ready.
				r.report.pod(pr)
			default:
				take(pr)
			}
		}
		if len(batch) == 0 && len(readyOnes) == 0 {
			// Each Pod left was skipped.
			return nil, nil
		}
		why := ""
		for _, pr := range readyOnes {
			if !room(pr) {
				continue
			}
			// A relaxation leaves the Pod Ready: the floors do not hold it
			// back, and it takes none of their Ready Pods.
			if pr.relaxes() {
				if held := holding(floors, pr.pod); held != nil && !r.saidRelaxes {
					r.saidRelaxes = true
					r.report.relaxationPassesFloor(held.String())
				}
			} else if held := takeOut(floors, pr.pod); held != nil {
				why = cmp.Or(why, held.String())
				continue
			}
			take(pr)
		}
		if len(batch) > 0 {
			// The Ready Pods that the batch takes out count so until the
			// Pods are read again.
			r.floors = floors
			return batch, nil
		}
		if !read {
			continue
		}
		switch {
		case r.waitTimeout > 0 && !waitUntil.IsZero() && !time.Now().Before(waitUntil):
			return nil, errors.New("stopped before the next batch: " + why + "; once the Pods that are not Ready are, or are deleted for their controller to replace, run the command again: it leaves the Pods changed already as they are")
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
// they are, and returns that one (holding).
func takeOut(floors []floor, pod *v1.Pod) *floor {
	if held := holding(floors, pod); held != nil {
		return held
	}
	for i := range floors {
		if floors[i].pods[pod.UID] {
			floors[i].ready--
		}
	}
	return nil
}

// holding returns the floor that counts the Ready Pod and that taking it
// out of readiness would take below its least; nil when none would.
func holding(floors []floor, pod *v1.Pod) *floor {
	for i := range floors {
		if floors[i].pods[pod.UID] && floors[i].ready <= floors[i].least() {
			return &floors[i]
		}
	}
	return nil
}

// provenSooner orders Pods by how soon the new probes of their container
// can be proven, from when it runs: a running container first, then
// crash-looping ones by the end of the kubelet's back-off, then the others,
// whose next start their status does not tell. So the first Pod, proven
// unless --wait=none, is not one that waits out a long back-off while
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
// does. Of each probe type that the change changed, it puts back the old
// probe, and what disable kept of that type, unless the change only relaxed
// it (stays): a relaxed probe that failed its proof is still the lesser
// evil. So a change that relaxed the liveness probe and made the readiness
// probe stricter has its readiness probe put back, which may be what
// failed, and keeps its new liveness probe. What stays is still the run's
// change, which the Pod's record of the run holds (undoChange); the run
// prints the kubectl probe undo that puts it back anyway. A Pod whose
// change someone else put back meanwhile (putBackMeanwhile), by hand or
// with the run's own kubectl probe undo, is left as it is, and counted as
// put back: no change of the run stands on it.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	if !r.undoOnFailure {
		r.report.undoHint(pr, r.cmdline)
		return
	}
	staying := stays(probesOf(pr.pod, pr.container), probesOf(pr.stored, pr.container), !pr.interrupted)
	pr.staying = staying
	if len(staying) > 0 && !slices.ContainsFunc(changedTypes(pr.pod, pr.stored, pr.container), func(t probeType) bool { return staying[t] == "" }) {
		pr.reason += "; not undone: " + staysBecause(staying, "its old probes", "the new ones")
		pr.kept = true
		r.report.notUndone(pr, staying, r.cmdline)
		return
	}
	res, err := r.patcher.apply(ctx, pr.stored, pr.container, undoChange{original: pr.pod, changed: pr.stored, keep: stayingTypes(staying)}, nil, false)
	if err != nil {
		var (
			unknown *outcomeUnknownError
			gone    *podGoneError
			left    *leftAlone
		)
		if errors.As(err, &left) && putBackMeanwhile(pr.pod, pr.stored, res.read, pr.container) {
			pr.undone, pr.stored = true, res.read
			pr.reason += "; undone already, by someone else"
			r.report.undoneAlready(pr)
			return
		}
		if pr.undoUnknown = errors.As(err, &unknown); pr.undoUnknown {
			unknown.of = "the put-back"
		}
		r.report.undoFailed(pr, err)
		switch {
		case errors.As(err, &gone):
			// No undo finds the change of a Pod deleted or recreated.
			pr.gone, pr.reason = true, pr.reason+"; then "+gone.reason
		case errors.As(err, &left):
			// Someone else changed its probes since, which an undo
			// leaves as they are too, and the run's change may stand
			// under theirs, or its record of the run, with the run's
			// change standing; they are the Pod's as the put-back read
			// it.
			pr.leftAlone, pr.recordReplaced, pr.stored = true, left.record, res.read
		default:
			r.report.stillToUndo(pr, staying, r.cmdline)
		}
		return
	}
	pr.stored = res.stored
	if len(staying) > 0 {
		pr.reason += "; undone but for " + stayingProbes(staying)
		pr.kept = true
		r.report.partlyUndone(pr, staying, r.cmdline)
		return
	}
	pr.undone = true
	pr.reason += "; undone"
	r.report.undone(pr)
}

// putBackMeanwhile says whether now, a Pod as read after its change from
// before to stored, holds none of that change: of each probe type that it
// changed, the container's probe, and the probe that disable kept for it,
// are as before has them. A Pod whose kept probes cannot be read may hold
// some of it.
func putBackMeanwhile(before, stored, now *v1.Pod, container string) bool {
	types := changedTypes(before, stored, container)
	was, _ := stateAt(before, container)
	is, err := stateAt(now, container)
	return err == nil && is.only(types).equal(was.only(types))
}

// leftToUndo says whether the Pod's record holds a run that kubectl probe
// undo would still put back: one not undone.
func leftToUndo(pod *v1.Pod) bool {
	record, err := readRecord(pod)
	return err == nil && record != nil && record.UndoneBy == ""
}

// stays says, of each probe type whose probe changed from was to now, why
// its new probe stays when the change failed its proof (failed), or was
// interrupted: the change only relaxed it, and the old probe, put back,
// would act sooner than the new one in a way and later in none. Each type
// is weighed on its own, with the probes of the other types as they are
// now: the old liveness or startup probe would restart the container
// sooner (sooner); the old readiness probe would keep the container out of
// readiness more (readinessSooner). An old probe and a new one that are
// each sooner in a way of their own, such as an old one that waits longer
// for an answer and allows fewer failures in a row, are no relaxation; nor
// is a probe that the change made stricter, nor a readiness probe with
// another handler: those types are put back, and have no key.
func stays(was, now map[probeType]*v1.Probe, failed bool) map[probeType]string {
	staying := map[probeType]string{}
	for _, t := range probeTypes {
		if equalProbes(was[t], now[t]) {
			continue
		}
		if t == readiness {
			if why := readinessSooner(was[t], now[t]); why != "" && readinessSooner(now[t], was[t]) == "" {
				staying[t] = why
			}
			continue
		}
		back := maps.Clone(now)
		back[t] = was[t]
		if why := sooner(back, now, failed); why != "" && sooner(now, back, failed) == "" {
			staying[t] = why
		}
	}
	return staying
}

// stayingTypes lists the probe types of staying, in the order of
// probeTypes.
func stayingTypes(staying map[probeType]string) []probeType {
	return slices.DeleteFunc(slices.Clone(probeTypes), func(t probeType) bool { return staying[t] == "" })
}

// staysBecause says why the probes staying stay: that old, the old probes,
// would restart the container sooner than new, or keep it out of readiness
// more, and how, for each of them.
func staysBecause(staying map[probeType]string, old, new string) string {
	var why []string
	for _, t := range stayingTypes(staying) {
		why = append(why, staying[t])
	}
	return fmt.Sprintf("%s would %s than %s (%s)", old, staysVerb(staying), new, strings.Join(why, "; "))
}

// staysVerb says what the old probes of the probes staying would do:
// restart the container sooner, keep it out of readiness more, or both.
func staysVerb(staying map[probeType]string) string {
	switch {
	case staying[readiness] == "":
		return "restart the container sooner"
	case len(staying) > 1:
		return "restart the container sooner, and keep it out of readiness more,"
	}
	return "keep the container out of readiness more"
}

// stayingProbes names the probes staying, and why they stay: "its liveness
// probe, as the old one would restart the container sooner than the new
// one (...)".
func stayingProbes(staying map[probeType]string) string {
	if types := stayingTypes(staying); len(types) > 1 {
		return fmt.Sprintf("its %s probes, as %s", joinTypes(types), staysBecause(staying, "the old ones", "the new ones"))
	}
	return fmt.Sprintf("its %s probe, as %s", stayingTypes(staying)[0], staysBecause(staying, "the old one", "the new one"))
}

// changedTypes lists the probe types of which the container's probe, or
// the probe that disable kept for it, differs between before and after.
func changedTypes(before, after *v1.Pod, container string) []probeType {
	b, _ := stateAt(before, container)
	a, _ := stateAt(after, container)
	var changed []probeType
	for _, t := range probeTypes {
		if !equalProbes(b.Probes[t], a.Probes[t]) || !equalProbes(b.Disabled[t], a.Disabled[t]) {
			changed = append(changed, t)
		}
	}
	return changed
}

// readinessSooner says how the readiness probe a would keep the container
// out of readiness more than b in one way, or "" in none: it is there and b
// is not, it asks another thing (another handler), it fails sooner (a lower
// failureThreshold, a shorter timeoutSeconds), or it holds a container that
// starts, or that failed it, out of readiness longer (a longer
// initialDelaySeconds, a higher successThreshold); another periodSeconds
// is both, as a shorter one fails sooner and a longer one holds a
// container that failed it out longer, until its successes in a row.
func readinessSooner(a, b *v1.Probe) string {
	switch {
	case a == nil:
		return ""
	case b == nil:
		return "the change removed the readiness probe"
	case !apiequality.Semantic.DeepEqual(a.ProbeHandler, b.ProbeHandler):
		return "the readiness probe: another handler"
	}
	o, n := withDefaults(a), withDefaults(b)
	oldSuccess, newSuccess := max(a.SuccessThreshold, 1), max(b.SuccessThreshold, 1)
	var ways []string
	for _, f := range []struct {
		name     string
		old, new int32
		unit     string
		sooner   bool
	}{
		{"initialDelaySeconds", o.InitialDelaySeconds, n.InitialDelaySeconds, "s", o.InitialDelaySeconds > n.InitialDelaySeconds},
		{"failureThreshold", o.FailureThreshold, n.FailureThreshold, "", o.FailureThreshold < n.FailureThreshold},
		{"successThreshold", oldSuccess, newSuccess, "", oldSuccess > newSuccess},
		{"periodSeconds", o.PeriodSeconds, n.PeriodSeconds, "s", o.PeriodSeconds != n.PeriodSeconds},
		{"timeoutSeconds", o.TimeoutSeconds, n.TimeoutSeconds, "s", o.TimeoutSeconds < n.TimeoutSeconds},
	} {
		if f.sooner {
			ways = append(ways, fmt.Sprintf("%s %d%s, the new one %d%s", f.name, f.old, f.unit, f.new, f.unit))
		}
	}
	if len(ways) == 0 {
		return ""
	}
	return "the readiness probe: " + strings.Join(ways, "; ")
}

// relaxes says whether the Pod's change only relaxes its liveness and
// startup probes (relaxes).
func (pr *podRun) relaxes() bool {
	return relaxes(probesOf(pr.pod, pr.container), probesOf(pr.modified, pr.container), pr.changes)
}

// relaxes says whether a change of the probes of the types, was to now,
// only relaxes liveness and startup probes, and so takes the container's
// Pod out of readiness no sooner than its old probes would: it changes no
// readiness probe, keeps the handlers (a startup probe added, the liveness
// probe's, which checked the starting container before), and the new
// probes would restart the container sooner in no way (sooner), the rule
// by which the undo of a failed change keeps the new liveness and startup
// probes (stays).
func relaxes(was, now map[probeType]*v1.Probe, types []probeType) bool {
	for _, t := range types {
		old := was[t]
		if t == startup && old == nil {
			old = was[liveness]
		}
		switch {
		case t == readiness:
			return false
		case now[t] == nil:
		case old == nil || !apiequality.Semantic.DeepEqual(old.ProbeHandler, now[t].ProbeHandler):
			return false
		}
	}
	return sooner(now, was, false) == ""
}

// sooner says how the probes was would restart the container sooner than
// now in one way, or "" when they would not in any. After a failed proof,
// only probes that ask what the new ones ask (the same handler) are
// weighed so: a new handler that failed is put back whatever its timing. A
// liveness probe would when the other one is not there, or is stricter in
// one of its timing fields (probeSooner). A startup probe would when it is
// so of the other startup probe, or, where either has none, what checks a
// starting container would: without a startup probe, the liveness probe
// runs from the container's start.
func sooner(was, now map[probeType]*v1.Probe, failed bool) string {
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
		o, n := cmp.Or(was[startup], was[liveness]), cmp.Or(now[startup], now[liveness])
		switch {
		case o == nil:
		case n == nil:
			old, _ := startLimit(was)
			return fmt.Sprintf("a starting container gets %ds before a restart, with the new probes none", old)
		case !weighed(o, n):
		default:
			if why := probeSooner(o, n); why != "" {
				return fmt.Sprintf("what checks a starting container, the %s probe, and with the new probes the %s probe: %s", startChecker(was), startChecker(now), why)
			}
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

// startChecker names the probe of probes that checks a starting container.
func startChecker(probes map[probeType]*v1.Probe) probeType {
	if probes[startup] != nil {
		return startup
	}
	return liveness
}

// probeSooner says in which of the fields that time a restart the probe
// was is stricter than now, and so would restart the container sooner, or
// "" in none: a shorter initialDelaySeconds, a lower failureThreshold, a
// shorter periodSeconds or timeoutSeconds. Each field counts on its own: a
// lower failureThreshold of a longer period, whose product is longer, is
// still stricter, as the kubelet restarts a container whose probe fails at
// once, say, after fewer failures.
func probeSooner(was, now *v1.Probe) string {
	o, n := withDefaults(was), withDefaults(now)
	var ways []string
	for _, f := range []struct {
		name     string
		old, new int32
		unit     string
	}{
		{"initialDelaySeconds", o.InitialDelaySeconds, n.InitialDelaySeconds, "s"},
		{"failureThreshold", o.FailureThreshold, n.FailureThreshold, ""},
		{"periodSeconds", o.PeriodSeconds, n.PeriodSeconds, "s"},
		{"timeoutSeconds", o.TimeoutSeconds, n.TimeoutSeconds, "s"},
	} {
		if f.old < f.new {
			ways = append(ways, fmt.Sprintf("%s %d%s, the new one %d%s", f.name, f.old, f.unit, f.new, f.unit))
		}
	}
	return strings.Join(ways, "; ")
}

// startLimit is how long a container that does not start gets before a
// restart: the startup probe's delay and failures in a row, or, without
// one, the liveness probe's; limited is false when it has neither.
func startLimit(probes map[probeType]*v1.Probe) (seconds int32, limited bool) {
	p := cmp.Or(probes[startup], probes[liveness])
	if p == nil {
		return 0, false
	}
	return int32(startGrace(p) / time.Second), true
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
