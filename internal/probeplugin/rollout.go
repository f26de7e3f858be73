package probeplugin

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// rollout is the run's third stage: it changes the Pods of todo,
// maxInFlight at a time, and has each change proven (prove.go) before it
// goes on; it stops at the first Pod that fails. runs are all the Pods of
// the run, for the end of it.
func (r *runner) rollout(ctx context.Context, runs, todo []*podRun) error {
	if r.dryRun != "" {
		for _, pr := range todo {
			pr.result, pr.stored = resultChanged, pr.modified
			r.report.pod(pr)
		}
		return nil
	}
	var stoppedAt atomic.Pointer[podRun]
	r.each(ctx, todo, r.maxInFlight, func(ctx context.Context, pr *podRun) bool {
		if stoppedAt.Load() != nil {
			return false
		}
		if !r.one(ctx, pr) {
			stoppedAt.CompareAndSwap(nil, pr)
			return false
		}
		return true
	})
	if first := stoppedAt.Load(); first != nil {
		var done, failed, rest []*podRun
		for _, pr := range todo {
			switch pr.result {
			case resultChanged:
				done = append(done, pr)
			case resultFailed:
				failed = append(failed, pr)
			case "":
				pr.result, pr.reason = resultSkipped, "not changed: the run stopped at pod/"+first.pod.Name
				rest = append(rest, pr)
			}
		}
		if len(todo) == 1 {
			return errReported
		}
		return r.report.stopped(done, failed, rest)
	}
	for _, pr := range runs {
		if pr.result == resultChanged || pr.result == resultUnchanged {
			return nil
		}
	}
	return errors.New("no Pod was changed: each one was skipped")
}

// each calls f on the Pods, workers at a time, in order, and stops handing
// out Pods once f returns false.
func (r *runner) each(ctx context.Context, runs []*podRun, workers int, f func(context.Context, *podRun) bool) {
	next := make(chan *podRun)
	var (
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range min(workers, len(runs)) {
		wg.Go(func() {
			for pr := range next {
				if !f(ctx, pr) {
					stop.Store(true)
				}
			}
		})
	}
	for _, pr := range runs {
		if stop.Load() || ctx.Err() != nil {
			break
		}
		next <- pr
	}
	close(next)
	wg.Wait()
}

// one changes a Pod, and has the change proven. It returns false when the
// Pod failed, and the run must stop.
func (r *runner) one(ctx context.Context, pr *podRun) bool {
	res, err := r.patcher.apply(ctx, pr.pod, r.container, r.change, pr.template, false)
	if err != nil {
		c := causeOf(err)
		if c.skip != "" {
			pr.result, pr.reason = resultSkipped, c.skip
			r.report.pod(pr)
			return true
		}
		pr.result, pr.reason = resultFailed, c.text
		r.report.failed(pr, c)
		return false
	}
	pr.pod, pr.stored = res.read, res.stored
	if !res.changed {
		pr.result = resultUnchanged
		r.report.pod(pr)
		return true
	}
	pr.result = resultChanged
	r.report.pod(pr)
	if r.prover == nil {
		return true
	}
	proven, err := r.prover.prove(ctx, res.read, res.stored, pr.container)
	var gone *podGoneError
	switch {
	case errors.As(err, &gone):
		pr.result, pr.reason = resultSkipped, "changed, then "+gone.reason
		r.report.warnf("pod/%s: changed, then %s\n", pr.pod.Name, gone.reason)
		return true
	case err != nil:
		pr.result, pr.reason = resultFailed, "changed, but "+err.Error()
		r.report.failed(pr, cause{text: pr.reason})
		r.undo(ctx, pr)
		return false
	}
	r.report.warnf("pod/%s: %s\n", pr.pod.Name, proven)
	return true
}

// undo puts back the probes of a Pod whose change failed, with
// --undo-on-failure, and otherwise prints the command that does.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	ch := undoChange{original: pr.pod, changed: pr.stored}
	if !r.undoOnFailure {
		back, _, err := modify(pr.stored, pr.container, ch, nil)
		if err != nil {
			return
		}
		patch, err := podPatch(pr.stored, back, false)
		if err != nil || patch == nil {
			return
		}
		r.report.undoCommand(pr, string(patch))
		return
	}
	res, err := r.patcher.apply(ctx, pr.stored, pr.container, ch, nil, false)
	if err != nil {
		r.report.warnf("error: pod/%s: undoing the change: %v\n", pr.pod.Name, err)
		return
	}
	pr.stored = res.stored
	pr.reason += "; undone"
	r.report.warnf("pod/%s: undone: its probes are as they were before\n", pr.pod.Name)
}
