package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// rollout is the run's third stage: it changes the Pods of todo as
// progressive delivery does, the first Pod alone, then in batches that
// double up to maxInFlight, each started only when every change of the one
// before it is proven (prove.go): a wrong probe reaches one Pod, and a right
// one is on every Pod after a few failure windows. It stops after the batch
// in which a Pod failed. runs are all the Pods of the run, for the end of
// it.
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
	var inFlight atomic.Int32
	said := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		r.report.interrupted(int(inFlight.Load()), r.undoOnFailure, r.undoCmd)
		close(said)
	})
	var (
		failed *podRun
		next   int
	)
	for _, size := range batchSizes(len(todo), r.maxInFlight) {
		if ctx.Err() != nil {
			break
		}
		batch := todo[next : next+size]
		next += size
		var wg sync.WaitGroup
		for _, pr := range batch {
			wg.Go(func() {
				inFlight.Add(1)
				defer inFlight.Add(-1)
				if ctx.Err() == nil {
					r.one(work, proofs, pr)
				}
			})
		}
		wg.Wait()
		if i := slices.IndexFunc(batch, func(pr *podRun) bool { return pr.result == resultFailed }); i >= 0 {
			failed = batch[i]
			break
		}
	}
	// What the run does about an interrupt is said before how it ended.
	interrupted := !stop()
	if interrupted {
		<-said
	}
	if failed == nil && !interrupted {
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
		case pr.result == "" && interrupted:
			pr.result, pr.reason = resultSkipped, "not changed: the run was interrupted"
			rest = append(rest, pr)
		case pr.result == "":
			pr.result, pr.reason = resultSkipped, "not changed: the run stopped at pod/"+failed.pod.Name
			rest = append(rest, pr)
		}
	}
	status := errReported
	switch {
	case interrupted:
		status = reportedStatus(exitInterrupted)
	case slices.ContainsFunc(todo, (*podRun).changed):
		status = reportedStatus(exitStopped)
	}
	if len(todo) == 1 && !interrupted {
		return status
	}
	title := "stopped at the first Pod that failed"
	if interrupted {
		title = "interrupted"
	}
	r.report.finished(title, done, failures, putBack, rest, r.undoCmd)
	return status
}

// batchSizes splits n Pods into batches: the first Pod alone, then batches
// that double, up to maxInFlight.
func batchSizes(n, maxInFlight int) []int {
	var sizes []int
	for size := 1; n > 0; size = min(2*size, maxInFlight) {
		size = min(size, n, maxInFlight)
		sizes = append(sizes, size)
		n -= size
	}
	return sizes
}

// one changes a Pod, and has the change proven: the proof ends with
// proofs, the requests with ctx. The Pod's result says how it went.
func (r *runner) one(ctx, proofs context.Context, pr *podRun) {
	res, err := r.patcher.apply(ctx, pr.pod, r.container, r.change, pr.template, false)
	if err != nil {
		c := causeOf(err)
		if c.skip != "" {
			pr.result, pr.reason = resultSkipped, c.skip
			r.report.pod(pr)
			return
		}
		pr.result, pr.reason = resultFailed, c.text
		r.report.failed(pr, c)
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
	if r.prove == nil {
		return
	}
	proven, err := r.prove(proofs, res.read, res.stored, pr.container)
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
	r.report.proven(pr, proven)
}

// undo puts back the probes of a Pod whose change failed, with
// --undo-on-failure, and otherwise prints the command that does. It never
// puts back a liveness probe that would restart the container sooner than
// the new one: a relaxed probe that failed its proof is still the lesser
// evil.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	if !r.undoOnFailure {
		r.report.undoHint(pr, r.undoCmd)
		return
	}
	if why := restartsSooner(probesOf(pr.pod, pr.container)[liveness], probesOf(pr.stored, pr.container)[liveness]); why != "" {
		pr.reason += "; not undone: the old liveness probe would restart the container sooner"
		r.report.notUndone(pr, why, r.undoCmd)
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

// restartsSooner says how the old liveness probe would restart the
// container sooner than the new one: it is there where the new one is not,
// it restarts the container after fewer seconds of failures in a row, or
// it waits less for an answer. It is "" when it would not.
func restartsSooner(was, now *v1.Probe) string {
	switch {
	case was == nil:
		return ""
	case now == nil:
		return "the change removed it"
	}
	o, n := withDefaults(was), withDefaults(now)
	if o.FailureThreshold*o.PeriodSeconds < n.FailureThreshold*n.PeriodSeconds || o.TimeoutSeconds < n.TimeoutSeconds {
		return fmt.Sprintf("failureThreshold × periodSeconds %d×%ds, timeout %ds; the new one %d×%ds, timeout %ds",
			o.FailureThreshold, o.PeriodSeconds, o.TimeoutSeconds, n.FailureThreshold, n.PeriodSeconds, n.TimeoutSeconds)
	}
	return ""
}

// withDefaults returns the probe's timing with the API's defaults for the
// fields that are not set.
func withDefaults(p *v1.Probe) v1.Probe {
	return v1.Probe{
		TimeoutSeconds:   cmp.Or(p.TimeoutSeconds, 1),
		PeriodSeconds:    cmp.Or(p.PeriodSeconds, 10),
		FailureThreshold: cmp.Or(p.FailureThreshold, 3),
	}
}
