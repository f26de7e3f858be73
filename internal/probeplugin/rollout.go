package probeplugin

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
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
	if len(todo) == 1 && !interrupted {
		return errReported
	}
	title := "stopped at the first Pod that failed"
	if interrupted {
		title = "interrupted"
	}
	r.report.finished(title, done, failures, putBack, rest, r.undoCmd)
	return errReported
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
// --undo-on-failure, and otherwise prints the command that does.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	if !r.undoOnFailure {
		r.report.undoHint(pr, r.undoCmd)
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
