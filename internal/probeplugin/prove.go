package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/kubectl/pkg/util/podutils"
	"k8s.io/utils/ptr"
)

// prover proves a change on its Pod, the run's fourth stage: that the
// kubelet applied it, and that each probe it added or changed proved
// itself on the container.
//
// The kubelet applies a Pod's probe changes before it reports the Pod's
// status, so status.observedGeneration at or past the change's generation
// means the new probes are in force. It does not mean that they work: after
// a change of the handler, timeout or thresholds the kubelet keeps the
// container's Ready and Started states until the new probe reaches a
// threshold, and a new liveness probe restarts the container only at its
// failureThreshold-th failure in a row. So each new probe is watched through
// its failure window, max(failureThreshold, successThreshold) ×
// (periodSeconds + timeoutSeconds), the part of initialDelaySeconds still to
// come for a probe added, and a margin: a probe that failed every time would
// have shown it by then.
//
// A readiness probe, once the container has started:
//
//   - Ready turning from false to true: only the new probe can do that,
//     since the kubelet discards the results of the old one once it has
//     applied the change. Passed.
//   - Ready turning from true to false, for a changed probe: the new probe
//     reached its failure threshold. Failed, at once.
//   - Ready still true at the end of the window: passed; not Ready: failed.
//
// A Pod that was Ready as a whole when the change was stored must also be
// Ready again before the next Pod changes; one that something else held
// not Ready then, as an unready sidecar or a false readiness gate, need
// not be: the probe's own proof is its container's.
//
// A liveness probe, once the container has started, is judged by its own
// failureThreshold, the change's point when it relaxes a probe while a
// dependency flaps: it fails when the kubelet kills the container for it (a
// Killing event that says the liveness probe failed), or when its
// Unhealthy events count failureThreshold failures in a row, which is when
// the kubelet restarts the container. Failures below that are counted and
// reported, and do not fail it. Failures are in a row when each comes at
// most one period and timeout, and a second, after the one before: a probe
// that passed between them would have been further apart. No restart
// through the window: passed; a run of failures still going on at its end
// lengthens it until the run could have reached the threshold. The kubelet
// records an Unhealthy event only for a result of the configuration in
// force, so the question is only whether it recorded one after it applied
// the change. Events carry the kubelet's time to the second; an event
// counts when it happened in a second after the one in which the API server
// stored the change, or when it arrives after the kubelet reported the
// change's generation and happened no earlier than that second. An old
// failure can pass for a new one only in the milliseconds between the
// change being stored and applied. Events can be dropped (the kubelet
// limits them), or come late: the restart is the last word.
//
// A startup probe of a container that has not started: the container
// starting passes it, since only the new probe can start it; its restart
// fails it. Its failures before that are its job. Its window includes the
// grace period of the kubelet's kill (the probe's
// terminationGracePeriodSeconds, or the Pod's): a probe that failed through
// its window reached its threshold, and the kubelet stops the container,
// which may take that long, before it starts the next one and reports the
// restart; not started at the end of that window fails it too. A
// startup probe of a container that has started runs when it restarts, and
// there is nothing to prove. Removing the startup probe of a container
// that has not started starts its liveness probe at once, which may
// restart it: that liveness probe, changed or not, is proven as a new one.
//
// For all of them, the container restarting, or stopping, fails the proof: a
// new container starts again, whatever its probes, so nothing is proven; the
// error says how the last run ended. The old state cannot pass for the new
// probe: it counts only when it lasts through the window in which the new
// probe, applied already, would have ended it.
//
// A crash-looping container, one that waits out the kubelet's back-off
// before its next start (CrashLoopBackOff), is proven from that start: its
// new probes begin then, and the back-off still to come is added to the
// proof's deadline, which would otherwise end the proof of a relaxation
// made to stop the loop before the container could show it. So is a
// container that stops for a kill that its old probes decided, as when a
// restart loop's kill is in flight: the run that ended finished before the
// new probes could have decided to kill it (failureThreshold - 1 periods
// after the change, when the kubelet counts their failures afresh), or its
// last Killing event is in the second in which the change was stored, or
// before, or before then too (see prover.killedBefore).
type prover struct {
	client kubernetes.Interface
	// timeout bounds each proof, but for the kubelet's back-offs:
	// --wait-timeout.
	timeout time.Duration
	// margin is added to a probe's failure window, for the kubelet to
	// publish the Pod's status and its events, and for them to arrive here.
	margin time.Duration
}

// prove waits until the kubelet reports the generation of stored, the Pod
// as a change of before stored it, and then until each probe of the
// container that the change added or changed proved itself. It returns
// what it proved, in words. A Pod that is deleted, recreated, terminating
// or finished meanwhile is a podGoneError.
func (w *prover) prove(ctx context.Context, before, stored *v1.Pod, container string) (string, error) {
	return w.wait(ctx, before, stored, container, true)
}

// notOnANode is what a wait says of a Pod that no kubelet runs yet: it has
// nothing to prove.
const notOnANode = "not on a node yet: its kubelet starts it with the new probes"

// applied waits only until the kubelet reports the generation of stored,
// and proves nothing of the new probes (--wait=applied).
func (w *prover) applied(ctx context.Context, before, stored *v1.Pod, container string) (string, error) {
	return w.wait(ctx, before, stored, container, false)
}

// wait waits as prove does, or, unless full, only until the kubelet
// applied the change.
func (w *prover) wait(ctx context.Context, before, stored *v1.Pod, container string, full bool) (string, error) {
	if stored.Spec.NodeName == "" {
		return notOnANode, nil
	}
	p, err := newProof(before, stored, container, w.margin, full)
	if err != nil {
		return "", err
	}
	if p.probes[liveness] != nil && w.killingEventGetsThrough(ctx, stored) {
		// The kubelet's Killing event shows a kill at once.
		p.killGrace = 0
	}
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	// The deadline moves by each back-off of the kubelet's that the
	// proof counts.
	var (
		deadline *time.Timer
		end      = time.Now().Add(w.timeout)
		expired  <-chan time.Time
	)
	if w.timeout > 0 {
		deadline = time.NewTimer(w.timeout)
		defer deadline.Stop()
		expired = deadline.C
	}

	pods := make(chan *v1.Pod)
	events := make(chan eventSeen)
	windows := make(chan windowEnd)
	ended := make(chan error, 1)
	eventsEnded := make(chan error, 1)
	go func() { ended <- w.watchPod(watchCtx, stored, pods) }()
	watchingEvents := false
	// The windows' timers, of each run of the container, stopped when the
	// proof ends.
	var timers []*time.Timer
	defer func() {
		for _, timer := range timers {
			timer.Stop()
		}
	}()
	for {
		var s step
		select {
		case pod := <-pods:
			s = p.observe(pod, time.Now())
		case e := <-events:
			s = p.event(e, time.Now())
		case window := <-windows:
			if window.round != p.round {
				// A window of a run of the container that the proof
				// no longer counts.
				continue
			}
			s = p.windowEnded(window.t, time.Now())
		case err := <-ended:
			var failed *podFailedError
			switch {
			case ctx.Err() != nil:
				return "", ctx.Err()
			case errors.As(err, &failed):
				p.last = failed.pod
				return "", w.explain(ctx, p, failed.failure(p.container))
			}
			return "", err
		case err := <-eventsEnded:
			if err != nil {
				p.notes = append(p.notes, fmt.Sprintf("the Pod's events could not be watched (%v), so only a restart would have shown a failure of its new liveness probe", err))
			}
			continue
		case <-expired:
			return "", p.timedOut(w.timeout, stored.Spec.NodeName)
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if s.failed != nil && s.failed.stopped && w.killedBefore(ctx, p) {
			s = p.again(time.Now())
		}
		if s.backOff > 0 && deadline != nil {
			end = end.Add(s.backOff)
			deadline.Reset(time.Until(end))
		}
		for t, length := range s.windows {
			window := windowEnd{t: t, round: p.round}
			timers = append(timers, time.AfterFunc(length, func() {
				select {
				case windows <- window:
				case <-watchCtx.Done():
				}
			}))
			// --wait-timeout bounds the wait for the kubelet and the
			// container; a window that began is waited out, and decided.
			if until := time.Now().Add(length + w.margin); deadline != nil && until.After(end) {
				end = until
				deadline.Reset(time.Until(end))
			}
		}
		if s.watchEvents && !watchingEvents {
			watchingEvents = true
			go func() { eventsEnded <- w.watchEvents(watchCtx, stored, events) }()
		}
		if s.failed != nil {
			return "", w.explain(ctx, p, s.failed)
		}
		if s.done {
			return p.summary(), nil
		}
	}
}

// windowEnd is the end of a probe's failure window that began in the
// proof's round.
type windowEnd struct {
	t     probeType
	round int
}

// killedBefore says whether the container's run that ended, the one that
// ran when the change was stored, stopped for a decision that the new
// probes cannot have made: one made before the change, such as an old
// liveness probe's that reached its threshold, whose kill was in flight.
// That stop says nothing of the new probes, as the stop before a crash
// loop's back-off does not. The kubelet's Killing event of that run says
// so when it is in the second in which the API server stored the change,
// or before; but the kubelet's recorder drops and folds events, so the
// container's own status says so too: the run finished before the new
// probes could have decided anything (soonestKill), which a Killing event
// of that run no later than that says as well.
func (w *prover) killedBefore(ctx context.Context, p *proof) bool {
	status := containerStatus(p.last, p.container)
	if status == nil {
		return false
	}
	run := cmp.Or(status.State.Terminated, status.LastTerminationState.Terminated)
	if run == nil || !p.ranAtChange(run) {
		return false
	}
	// Times are to the second: a time in a second before soonest is
	// before the first moment at which the new probes could decide.
	soonest := p.stored.Add(p.soonestKill)
	if finished := run.FinishedAt.Truncate(time.Second); !run.FinishedAt.IsZero() && finished.Before(soonest) {
		return true
	}
	e := lastEvent(ctx, w.client, p.last, p.container, "Killing")
	if e == nil {
		return false
	}
	at := eventTime(e).Truncate(time.Second)
	return !at.Before(run.StartedAt.Truncate(time.Second)) && (!at.After(p.stored) || at.Before(soonest))
}

// ranSince says whether the container that ran at the change, as last
// reported, had started by at, and the run before it had ended before: an
// event at then is about it.
func (p *proof) ranSince(at time.Time) bool {
	status := containerStatus(p.last, p.container)
	if status == nil || status.State.Running == nil || status.ContainerID != p.runningAtChange || at.Before(status.State.Running.StartedAt.Truncate(time.Second)) {
		return false
	}
	last := status.LastTerminationState.Terminated
	return last == nil || last.FinishedAt.Truncate(time.Second).Before(at)
}

// ranAtChange says whether run, a run of the container that ended, is the
// one that ran when the change was stored: its container's ID, or else
// its start, no later than the change.
func (p *proof) ranAtChange(run *v1.ContainerStateTerminated) bool {
	if p.runningAtChange != "" && run.ContainerID != "" {
		return run.ContainerID == p.runningAtChange
	}
	return !run.StartedAt.Truncate(time.Second).After(p.stored)
}

// podFailedError is a Pod that failed while its change was proven.
type podFailedError struct {
	pod *v1.Pod
}

func (e *podFailedError) Error() string { return "the Pod failed" }

// failure says how the Pod failed: how its container ended.
func (e *podFailedError) failure(container string) *failure {
	message := "the Pod failed before the change was proven"
	if status := containerStatus(e.pod, container); status != nil && status.State.Terminated != nil {
		t := status.State.Terminated
		message += fmt.Sprintf(": container %q ended with %s, exit code %d", container, cmp.Or(t.Reason, "no reason"), t.ExitCode)
	}
	return &failure{message: message, event: "Unhealthy"}
}

// explain returns the error of a failed proof, with the container's latest
// event that says why, when the failure names one.
func (w *prover) explain(ctx context.Context, p *proof, f *failure) error {
	message := f.message
	if f.event != "" {
		if e := lastEvent(ctx, w.client, p.last, p.container, f.event); e != nil {
			message += fmt.Sprintf("; its last %s event, %s ago: %s", f.event, duration.HumanDuration(time.Since(eventTime(e))), firstLine(e.Message, 200))
		}
	}
	return errors.New(message)
}

// watchPod sends each state of the Pod to pods until ctx ends, or the Pod
// is deleted, recreated, terminating or succeeded (a podGoneError), or
// failed (a podFailedError).
func (w *prover) watchPod(ctx context.Context, pod *v1.Pod, pods chan<- *v1.Pod) error {
	client := w.client.CoreV1().Pods(pod.Namespace)
	field := fields.OneTermEqualSelector(metav1.ObjectNameField, pod.Name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = field
			return client.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = field
			return client.Watch(ctx, opts)
		},
	}
	_, err := watchtools.UntilWithSync(ctx, cache.ToListWatcherWithWatchListSemantics(lw, w.client), &v1.Pod{}, nil, func(e watch.Event) (bool, error) {
		if e.Type == watch.Deleted {
			return false, &podGoneError{reason: "deleted"}
		}
		p, ok := e.Object.(*v1.Pod)
		if !ok {
			return false, nil
		}
		if p.UID != pod.UID {
			return false, &podGoneError{reason: "recreated: another Pod has its name now"}
		}
		if p.Status.Phase == v1.PodFailed && p.DeletionTimestamp == nil && p.Status.Reason == "" {
			// A container that does not restart (restartPolicy Never, of
			// the Pod or the container) fails its Pod where another would
			// restart; the kubelet gives a reason when it ends the Pod
			// itself (Evicted, DeadlineExceeded).
			return false, &podFailedError{pod: p}
		}
		if reason := leaving(p); reason != "" {
			return false, &podGoneError{reason: reason}
		}
		select {
		case pods <- p:
		case <-ctx.Done():
		}
		return false, nil
	})
	return err
}

// eventSeen is an event of the Pod, as the prover's watch of events sees
// it.
type eventSeen struct {
	event *v1.Event
	// live is set for an event that was not there, or not as it is, when
	// the watch began: one that the kubelet recorded, or recorded again,
	// since.
	live bool
}

// watchEvents sends the Pod's events to events until ctx ends: first those
// there now, then those that the kubelet records from then on.
func (w *prover) watchEvents(ctx context.Context, pod *v1.Pod, events chan<- eventSeen) error {
	client := w.client.CoreV1().Events(pod.Namespace)
	// Unhealthy and Killing events: a field selector cannot say or.
	field := fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)).String()
	send := func(e *v1.Event, live bool) {
		select {
		case events <- eventSeen{event: e, live: live}:
		case <-ctx.Done():
		}
	}
	list, err := client.List(ctx, metav1.ListOptions{FieldSelector: field})
	if err != nil {
		return err
	}
	for i := range list.Items {
		send(&list.Items[i], false)
	}
	var watcher watch.Interface
	if list.ResourceVersion == "" {
		// Only a fake API server answers without one.
		watcher, err = client.Watch(ctx, metav1.ListOptions{FieldSelector: field})
	} else {
		watcher, err = watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.FieldSelector = field
				return client.Watch(ctx, opts)
			},
		})
	}
	if err != nil {
		return err
	}
	defer watcher.Stop()
	for {
		select {
		case e, ok := <-watcher.ResultChan():
			if !ok {
				return nil
			}
			switch e.Type {
			case watch.Added, watch.Modified:
				if ev, ok := e.Object.(*v1.Event); ok {
					send(ev, true)
				}
			case watch.Error:
				return apierrors.FromObject(e.Object)
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// step is what the proof decided from one observation.
type step struct {
	// windows are the failure windows that begin now, by probe type.
	windows map[probeType]time.Duration
	// watchEvents asks for the Pod's events.
	watchEvents bool
	// backOff is the kubelet's back-off before the container's next
	// start, to add to the proof's deadline.
	backOff time.Duration
	done    bool
	failed  *failure
}

// failure is a proof that failed.
type failure struct {
	message string
	// event is the reason of the container's latest event that says why, to
	// add to the message: "Unhealthy", "Killing", or "" for none.
	event string
	// stopped is set when the container restarted or stopped.
	stopped bool
}

// proof decides, from what the kubelet reports after it applied a change,
// whether the change's new probes proved themselves; see prover. It only
// decides: prove feeds it and keeps its clocks.
type proof struct {
	generation int64
	container  string
	fieldPath  string
	// alone is set when the container is the Pod's only one with a
	// liveness probe.
	alone bool
	// stored is when the API server stored the change, to the second.
	stored time.Time
	margin time.Duration

	// probes are the new probes to prove, and added says which of them the
	// change added.
	probes map[probeType]*v1.Probe
	added  map[probeType]bool
	// notes say what needs no proof, in the order of probeTypes.
	notes []string
	// startedAtChange is whether the container had started when the change
	// was stored. The kubelet may report the new generation and a start in
	// one status, so only this says which probe started it.
	// runningAtChange is the ID of the container that ran then, if the
	// Pod's status said.
	startedAtChange bool
	runningAtChange string
	// readyAtChange is whether the Pod was Ready as a whole when the
	// change was stored: a new readiness probe's proof then waits for it
	// to be Ready again.
	readyAtChange bool
	// soonestKill is how long after the change was stored the new probes
	// could have made the kubelet kill the container at the soonest (see
	// soonestKill).
	soonestKill time.Duration

	applied bool
	// began holds the probes whose proof began, with their failure window.
	began  map[probeType]time.Duration
	passed map[probeType]string
	// restarts is the container's restart count when the first proof
	// began, and running the ID of the container that ran then, if one
	// did: the kubelet counts a restart only when it starts the next
	// container, after its back-off.
	restarts int32
	running  string
	// stopping is set while every container of the Pod has stopped, and
	// the next status is to say why: no window is decided meanwhile.
	stopping  bool
	readiness *readinessProof
	// failures counts the new liveness probe's failures.
	failures livenessFailures
	// extended is set once the liveness window was lengthened for a run of
	// failures going on at its end: it is lengthened once, so that a probe
	// that keeps failing now and then is decided.
	extended bool
	// oldKill is when the kubelet's Killing event told a kill for the old
	// liveness probe, decided before the new probes could have decided
	// one, of the container that ran at the change; zero when none did.
	// That container stops within oldKillGrace, the old probe's
	// killGracePeriod, and a window of the new liveness probe is not
	// decided before that: the kubelet holds a liveness probe that decided
	// a kill, so the new one may not run until the next container.
	oldKill      time.Time
	oldKillGrace time.Duration
	// killGrace is how long a container that the kubelet kills for its
	// liveness probe may take to stop (killGracePeriod), when the kubelet's
	// Killing event may not show the kill (killingEventGetsThrough); 0
	// otherwise. startupKillGrace is that of a kill for the startup probe,
	// which the proof waits for whatever the events show: a startup probe
	// that reached its threshold is judged by the restart that follows.
	killGrace, startupKillGrace time.Duration
	// last is the Pod as last reported.
	last *v1.Pod
	// backedOff is when the container's run ended whose back-off the
	// proof counted, and backOffs all the back-off it counted: one in each
	// round, that before the container's next start. A container that
	// stops again before it starts gets no more time: with the kubelet's
	// back-off of up to 5 minutes at each stop, a proof that counted them
	// all would wait on a crash loop for as long as it lasts.
	backedOff time.Time
	backOffs  time.Duration
	// round counts the times the proof began again (again): a failure
	// window that began in an earlier one decides nothing.
	round int
}

// newProof returns the proof of the change of before that stored is: of
// the new probes, or, unless full, only that the kubelet applied it.
func newProof(before, stored *v1.Pod, container string, margin time.Duration, full bool) (*proof, error) {
	_, fieldPath, err := findContainer(stored, container)
	if err != nil {
		return nil, err
	}
	p := &proof{
		generation: stored.Generation,
		container:  container,
		fieldPath:  fieldPath,
		alone:      livenessProbes(stored) == 1,
		stored:     storedAt(stored),
		margin:     margin,
		probes:     map[probeType]*v1.Probe{},
		added:      map[probeType]bool{},
		began:      map[probeType]time.Duration{},
		passed:     map[probeType]string{},
		last:       stored,
		failures:   livenessFailures{counts: map[string]int32{}},

		startedAtChange: started(containerStatus(stored, container)),
		readyAtChange:   podutils.IsPodReady(stored),
	}
	if status := containerStatus(stored, container); status != nil && status.State.Running != nil {
		p.runningAtChange = status.ContainerID
	}
	if !full {
		p.notes = append(p.notes, "its new probes are not proven (--wait=applied)")
		return p, nil
	}
	was, now := probesOf(before, container), probesOf(stored, container)
	if now[liveness] != nil {
		p.killGrace = killGracePeriod(stored, now[liveness])
	}
	if was[liveness] != nil {
		p.oldKillGrace = killGracePeriod(before, was[liveness])
	}
	if now[startup] != nil {
		p.startupKillGrace = killGracePeriod(stored, now[startup])
	}
	for _, t := range changedProbes(before, stored, container) {
		switch {
		case now[t] != nil:
			p.probes[t], p.added[t] = now[t], was[t] == nil
		case t == readiness:
			p.notes = append(p.notes, "without a readiness probe the container counts as Ready")
		case t == startup && !p.startedAtChange && now[liveness] != nil && p.probes[liveness] == nil:
			// The startup probe held the liveness probe back; without it,
			// the liveness probe runs at once, and may restart the
			// container, as a new one would.
			p.probes[liveness] = now[liveness]
			p.notes = append(p.notes, "without its startup probe, the container that had not started runs its liveness probe: it is proven as a new one")
		}
	}
	deciding := p.probes
	if p.startedAtChange && p.probes[startup] != nil {
		// A started container's new startup probe runs only when it
		// restarts: it decides no kill of this one.
		deciding = maps.Clone(p.probes)
		delete(deciding, startup)
	}
	p.soonestKill = soonestKill(was, deciding)
	return p, nil
}

// testedProbes returns the new probes that the proof of the change of
// before that stored tests on the container that runs, the container as
// before has it: none when the change only removed probes, and not the
// startup probe of a container that had started, which runs it when it
// restarts. With --wait=applied, the Pods of a workload are proven until
// each of these was, on one of them.
func testedProbes(before, stored *v1.Pod, container string) []probeType {
	changed := *stored
	changed.Status = before.Status
	p, err := newProof(before, &changed, container, 0, true)
	if err != nil {
		return nil
	}
	var types []probeType
	for _, t := range probeTypes {
		if p.probes[t] != nil && (t != startup || !p.startedAtChange) {
			types = append(types, t)
		}
	}
	return types
}

// soonestKill is how long after a change of the probes was, to the new
// probes that a proof proves, the kubelet can have decided to kill the
// container for one of them, at the soonest: its liveness or startup
// probe's failureThreshold failures in a row, the first as the kubelet
// applied it, each a period apart, when the change makes the kubelet count
// them afresh (a new handler, timeoutSeconds or threshold, or a probe that
// did not run before); at once when it keeps the count of the old probe's
// failures (a changed periodSeconds, say), or when no new probe can kill.
func soonestKill(was, probes map[probeType]*v1.Probe) time.Duration {
	var soonest time.Duration
	first := true
	for _, t := range []probeType{liveness, startup} {
		probe := probes[t]
		if probe == nil {
			continue
		}
		var d time.Duration
		if old := was[t]; old == nil || countsAfresh(old, probe) {
			d = time.Duration(max(probe.FailureThreshold, 1)-1) * time.Duration(max(probe.PeriodSeconds, 1)) * time.Second
		}
		if first || d < soonest {
			soonest, first = d, false
		}
	}
	return soonest
}

// countsAfresh says whether the kubelet counts a probe's results afresh
// when it changes from was to now: for a new handler or timeoutSeconds,
// which end the attempt in flight, and for new thresholds.
func countsAfresh(was, now *v1.Probe) bool {
	return !apiequality.Semantic.DeepEqual(was.ProbeHandler, now.ProbeHandler) || was.TimeoutSeconds != now.TimeoutSeconds ||
		was.FailureThreshold != now.FailureThreshold || was.SuccessThreshold != now.SuccessThreshold
}

// The kubelet's event recorder drops an object's events of a type (Normal,
// Warning) beyond a burst of 25, then lets one through every 5 minutes
// (client-go's EventSourceObjectSpamFilter).
const (
	eventBurst  = 25
	eventRefill = 5 * time.Minute
)

// killingEventGetsThrough says whether the kubelet's next Normal event of the
// Pod, such as the Killing event of a kill for the liveness probe, gets
// through its recorder's spam filter. It counts the kubelet's Normal events
// of the Pod within the time the filter takes to refill a whole burst,
// which is at least what it has not taken back yet; false when they cannot
// be read. A crash-looping Pod has used the burst up.
func (w *prover) killingEventGetsThrough(ctx context.Context, pod *v1.Pod) bool {
	list, err := w.client.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)).String(),
	})
	if err != nil {
		return false
	}
	since := time.Now().Add(-eventBurst * eventRefill)
	used := 0
	for i := range list.Items {
		e := &list.Items[i]
		if e.Source.Component == "kubelet" && e.Type == v1.EventTypeNormal && !eventTime(e).Before(since) {
			used += int(max(e.Count, 1))
		}
	}
	return used < eventBurst
}

// killGracePeriod is the grace period the kubelet gives a container it
// kills for a failed liveness or startup probe: the probe's
// terminationGracePeriodSeconds, or the Pod's, which the API server sets on
// every Pod (30s when the Pod does not say).
func killGracePeriod(pod *v1.Pod, probe *v1.Probe) time.Duration {
	seconds := cmp.Or(probe.TerminationGracePeriodSeconds, pod.Spec.TerminationGracePeriodSeconds)
	return time.Duration(ptr.Deref(seconds, v1.DefaultTerminationGracePeriodSeconds)) * time.Second
}

// storedAt is when the API server stored the Pod, to the second: the latest
// time of its managed fields, which the change that stored it set. Without
// managed fields it is now, which is later.
func storedAt(pod *v1.Pod) time.Time {
	var t time.Time
	for _, m := range pod.ManagedFields {
		if m.Time != nil && m.Time.After(t) {
			t = m.Time.Time
		}
	}
	if t.IsZero() {
		t = time.Now()
	}
	return t.Truncate(time.Second)
}

// observe takes the Pod as the kubelet reports it.
func (p *proof) observe(pod *v1.Pod, now time.Time) step {
	p.last, p.stopping = pod, false
	var s step
	status := containerStatus(pod, p.container)
	if !p.applied {
		if pod.Status.ObservedGeneration < p.generation {
			return s
		}
		p.applied = true
		if p.probes[startup] != nil && p.startedAtChange {
			delete(p.probes, startup)
			p.notes = append(p.notes, "the container has started: its new startup probe runs when it restarts")
		}
	}
	if len(p.began) > 0 && status != nil {
		switch {
		case status.RestartCount != p.restarts:
			s.failed = p.restarted(status)
			return s
		case p.running != "" && (status.ContainerID != p.running || status.State.Running == nil):
			if status.ContainerID == p.running && status.State.Terminated != nil && !anyRuns(pod) {
				// Every container of the Pod stopped: the kubelet may be
				// ending the Pod itself (an eviction, a node shutdown),
				// and holds its phase back until they have. The next
				// status says: a phase that ends the Pod, a back-off, or
				// a restart.
				p.stopping = true
				return s
			}
			s.failed = p.stopped(status)
			return s
		}
	}
	s.backOff = p.backOff(status, now)
	// A startup probe runs from the container's start: a container that
	// waits out a back-off is proven from its next one.
	if probe := p.probes[startup]; probe != nil && (status == nil || status.State.Waiting == nil && status.State.Terminated == nil) {
		if _, ok := p.began[startup]; !ok {
			p.begin(&s, startup, probe, status, now)
		}
	}
	if p.probes[startup] != nil && p.passed[startup] == "" && started(status) {
		p.passed[startup] = "the container started"
	}
	if !started(status) {
		return p.decide(s)
	}
	for _, t := range []probeType{liveness, readiness} {
		if probe := p.probes[t]; probe != nil {
			if _, ok := p.began[t]; !ok {
				p.begin(&s, t, probe, status, now)
			}
		}
	}
	if p.readiness != nil && p.passed[readiness] == "" {
		passed, err := p.readiness.observe(status.Ready)
		switch {
		case err != nil:
			s.failed = &failure{message: fmt.Sprintf("the new readiness probe failed: container %q is not Ready any more", p.container), event: "Unhealthy"}
			return s
		case passed:
			p.passed[readiness] = "the container turned Ready"
		}
	}
	return p.decide(s)
}

// again begins the proof again, from the container's next start: the
// container that its windows began on stopped for its old probes (see
// prover.killedBefore). The failures counted are that container's; the
// events seen stay seen.
func (p *proof) again(now time.Time) step {
	p.round++
	p.began, p.passed = map[probeType]time.Duration{}, map[probeType]string{}
	p.restarts, p.running, p.readiness, p.extended, p.oldKill, p.backedOff = 0, "", nil, false, time.Time{}, time.Time{}
	p.failures = livenessFailures{counts: p.failures.counts}
	return p.observe(p.last, now)
}

// backOff returns the part still to come of the kubelet's back-off before
// the next start of a crash-looping container, the first time in the round
// that the proof sees a back-off; 0 otherwise.
func (p *proof) backOff(status *v1.ContainerStatus, now time.Time) time.Duration {
	finished, ends, ok := inBackOff(status)
	if !ok || !p.backedOff.IsZero() {
		return 0
	}
	p.backedOff = finished
	left := max(ends.Sub(now), 0)
	p.backOffs += left
	return left
}

// inBackOff returns, for a crash-looping container, one that waits out the
// kubelet's back-off before its next start, when its last run finished
// and when that back-off ends; ok is false for any other container.
func inBackOff(status *v1.ContainerStatus) (finished, ends time.Time, ok bool) {
	if status == nil || status.State.Waiting == nil || status.State.Waiting.Reason != crashLoopBackOff || status.LastTerminationState.Terminated == nil {
		return time.Time{}, time.Time{}, false
	}
	finished = status.LastTerminationState.Terminated.FinishedAt.Time
	return finished, finished.Add(kubeletBackOff(status.RestartCount)), true
}

// crashLoopBackOff is the reason of a container that waits out the
// kubelet's back-off before it starts again.
const crashLoopBackOff = "CrashLoopBackOff"

// kubeletBackOff is how long the kubelet waits before it starts a container
// that has restarted restarts times and ended again: 10s after the second
// run, doubling with each restart up to 5 minutes. The kubelet starts again
// from 10s after a container ran 10 minutes, so this is the longest it
// waits.
func kubeletBackOff(restarts int32) time.Duration {
	const initial, most = 10 * time.Second, 5 * time.Minute
	if restarts > 5 {
		return most
	}
	return min(initial<<max(restarts-1, 0), most)
}

// begin begins the proof of a probe: its window, from now.
func (p *proof) begin(s *step, t probeType, probe *v1.Probe, status *v1.ContainerStatus, now time.Time) {
	if len(p.began) == 0 && status != nil {
		p.restarts = status.RestartCount
		if status.State.Running != nil {
			p.running = status.ContainerID
		}
	}
	window := failureWindow(probe, p.margin) + remainingDelay(probe, status, now)
	switch t {
	case liveness:
		// When the kubelet's events of the Pod may be dropped, a kill shows
		// only as the restart, once the container stopped.
		window += p.killGrace
	case startup:
		// A container that has not started at the end of the failure
		// window failed its new startup probe failureThreshold times in a
		// row, and the kubelet is stopping it, for as long as the grace
		// period, before it starts the next one and reports the restart,
		// which says so.
		window += p.startupKillGrace
	}
	p.began[t] = window
	if s.windows == nil {
		s.windows = map[probeType]time.Duration{}
	}
	s.windows[t] = window
	switch t {
	case readiness:
		p.readiness = newReadinessProof(p.added[readiness], status.Ready)
	case liveness:
		s.watchEvents = true
	}
}

// event takes an event of the Pod: the kubelet killing the container for
// its liveness probe, or failureThreshold failures in a row of the new
// liveness probe, fail the proof; fewer are counted for its summary.
func (p *proof) event(e eventSeen, now time.Time) step {
	var s step
	ev, probe := e.event, p.probes[liveness]
	if probe == nil || p.passed[liveness] != "" {
		return s
	}
	message, combined := strings.CutPrefix(ev.Message, "(combined from similar events): ")
	var n int32
	if ev.Reason == "Unhealthy" {
		// Whatever it says and whichever container it is about: the
		// kubelet's recorder combines the Pod's Unhealthy events into one,
		// whose count goes up with each, and which says only the last.
		n = p.failures.seen(ev, p.stored)
	}
	// A combined event keeps the path of the event that began it, whichever
	// container the later ones are about.
	if !combined && ev.InvolvedObject.FieldPath != "" && ev.InvolvedObject.FieldPath != p.fieldPath {
		return s
	}
	at := eventTime(ev).Truncate(time.Second)
	killing := ev.Reason == "Killing" && strings.Contains(message, "failed liveness probe")
	// Told before the change was stored: in an earlier second, or in the
	// same one, as listed when the proof began (a kill seen live in that
	// second may be the new probe's, when it keeps the old one's count).
	before := !at.After(p.stored) && !(e.live && at.Equal(p.stored))
	if killing && (before || at.Before(p.stored.Add(p.soonestKill))) {
		// A kill before the new probes could have decided one (the old
		// probes', in flight at the change, told then or a second or so
		// late) is left to the restart that follows, which killedBefore
		// judges; until then, no window of the new liveness probe is
		// decided (oldKill). Only a kill of the container that ran at the
		// change, in this round of the proof.
		if p.round == 0 && p.ranSince(at) {
			p.oldKill = at
		}
		return s
	}
	if before {
		return s
	}
	switch {
	case killing:
		// The kubelet kills a container for its liveness probe when the
		// probe's failures in a row reach its threshold, which this event
		// can tell before the last Unhealthy event does: both say the same.
		s.failed = p.livenessThresholdReached(probe, nil, now)
	case combined && !p.alone && ev.Reason == "Unhealthy" && strings.HasPrefix(message, "Liveness probe"):
		// Another container's liveness probe may have failed: only a
		// restart tells this one's failures now.
		p.failures.untold = true
	case ev.Reason == "Unhealthy" && strings.HasPrefix(message, "Liveness probe errored"):
		// The kubelet throws an errored attempt's result away: it neither
		// counts towards the threshold nor ends a run of failures.
		p.failures.ran(at, probe)
	case ev.Reason == "Unhealthy" && strings.HasPrefix(message, "Liveness probe failed"):
		if combined {
			// Of what the count went up by, only the last is known to be
			// this probe's failure.
			n = min(n, 1)
		}
		p.failures.add(n, at, probe)
		// A threshold of 1 is reached by any failure; a higher one by a
		// run that the failures' times can tell.
		if threshold := max(probe.FailureThreshold, 1); p.failures.streak >= threshold && (threshold == 1 || tellsRuns(probe)) {
			s.failed = p.livenessThresholdReached(probe, ev, now)
		}
	}
	return s
}

// livenessProbes counts the containers of the Pod that have a liveness
// probe.
func livenessProbes(pod *v1.Pod) int {
	n := 0
	for _, c := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
		if c.LivenessProbe != nil {
			n++
		}
	}
	return n
}

// livenessThresholdReached is the failure of a new liveness probe whose
// failures in a row reached its threshold: the kubelet restarts the
// container. Its last Unhealthy event says how it failed: last, when the
// caller has it, or the one read when the failure is reported.
func (p *proof) livenessThresholdReached(probe *v1.Probe, last *v1.Event, now time.Time) *failure {
	message := fmt.Sprintf("the new liveness probe of container %q reached its failureThreshold, %s in a row: the kubelet restarts the container", p.container, failures(max(probe.FailureThreshold, 1)))
	if last == nil {
		return &failure{message: message, event: "Unhealthy"}
	}
	return &failure{message: message + fmt.Sprintf("; its last Unhealthy event, %s ago: %s", duration.HumanDuration(now.Sub(eventTime(last))), firstLine(last.Message, 200))}
}

// livenessFailures counts the failures of a new liveness probe that its
// Unhealthy events report. The kubelet folds a probe's repeated failures
// into one event whose count goes up.
type livenessFailures struct {
	// counts holds the count of each Unhealthy event seen, by name.
	counts map[string]int32
	// total is the failures; streak the failures in a row up to the last
	// one, longest the most in a row.
	total, streak, longest int32
	// last is when the last failure of the streak, or the last attempt
	// that errored after it, happened, to the second.
	last time.Time
	// untold is set when the Pod's Unhealthy events were combined, and
	// did not say whose liveness probe failed.
	untold bool
}

// seen records the count of an Unhealthy event of the Pod, and returns by
// how much it went up since the event was last seen. Of an event first
// seen, that is its count when it first happened after the change was
// stored, and otherwise 1: only its last happening is known to be after.
func (f *livenessFailures) seen(ev *v1.Event, stored time.Time) int32 {
	count := max(ev.Count, 1)
	if ev.Series != nil {
		count = max(count, ev.Series.Count)
	}
	key := ev.Namespace + "/" + ev.Name
	seen, ok := f.counts[key]
	f.counts[key] = max(count, seen)
	switch {
	case ok:
		return max(count-seen, 0)
	case ev.FirstTimestamp.Truncate(time.Second).After(stored):
		return count
	}
	return 1
}

// add counts n failures of the probe, the last of them at at.
func (f *livenessFailures) add(n int32, at time.Time, probe *v1.Probe) {
	if n <= 0 {
		return
	}
	if f.last.IsZero() || at.Sub(f.last) > time.Duration(n)*attemptGap(probe) {
		f.streak = n
	} else {
		f.streak += n
	}
	f.total += n
	f.longest = max(f.longest, f.streak)
	f.last = at
}

// ran notes an attempt of the probe that errored at at: the run of
// failures before it goes on, unless an attempt between them passed.
func (f *livenessFailures) ran(at time.Time, probe *v1.Probe) {
	switch {
	case f.streak == 0 || !at.After(f.last):
	case at.Sub(f.last) > attemptGap(probe):
		f.streak = 0
	default:
		f.last = at
	}
}

// remaining is how much longer a proof whose window ends now waits for a
// run of failures still going on: until it could have reached the probe's
// threshold. It is 0 when no run is going on.
func (f *livenessFailures) remaining(probe *v1.Probe, now time.Time, margin time.Duration) time.Duration {
	streak := f.streak
	if !tellsRuns(probe) {
		// The run going on may be of its last failure only.
		streak = min(streak, 1)
	}
	left := max(probe.FailureThreshold, 1) - streak
	if streak == 0 || left <= 0 || now.Sub(f.last) > attemptGap(probe) {
		return 0
	}
	return time.Duration(left)*time.Duration(max(probe.PeriodSeconds, 1)+max(probe.TimeoutSeconds, 1))*time.Second + margin
}

// summary says how often the probe failed below its threshold; "" when
// it did not.
func (f *livenessFailures) summary(probe *v1.Probe) string {
	var s string
	switch {
	case f.total == 0:
	case !tellsRuns(probe):
		s = fmt.Sprintf("; it failed %s, and the kubelet did not restart the container", times(f.total))
	default:
		s = fmt.Sprintf("; it failed %s, at most %d in a row, below its failureThreshold of %d", times(f.total), f.longest, max(probe.FailureThreshold, 1))
	}
	if f.untold {
		s += "; the kubelet combined the Pod's Unhealthy events, which then do not say whose liveness probe failed: only a restart shows this one's failures"
	}
	return s
}

// attemptGap is the longest time between two attempts of a probe in a
// row: its period and timeout, and a second for event times, which are to
// the second.
func attemptGap(probe *v1.Probe) time.Duration {
	return time.Duration(max(probe.PeriodSeconds, 1)+max(probe.TimeoutSeconds, 1)+1) * time.Second
}

// tellsRuns reports whether the times of a probe's failures tell failures
// in a row, at most attemptGap apart, from failures with a success between
// them, at least two periods less a timeout apart (the first attempt timed
// out, the next failed at once): when its period is longer than twice its
// timeout and a second. Otherwise only the kubelet's kill, or the restart,
// says that the failures in a row reached the threshold.
func tellsRuns(probe *v1.Probe) bool {
	return max(probe.PeriodSeconds, 1) > 2*max(probe.TimeoutSeconds, 1)+1
}

// failures says how many failures: "1 failure", "3 failures".
func failures(n int32) string {
	if n == 1 {
		return "1 failure"
	}
	return fmt.Sprintf("%d failures", n)
}

// times says how many times: "once", "3 times".
func times(n int32) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// windowEnded decides a probe whose failure window ended.
func (p *proof) windowEnded(t probeType, now time.Time) step {
	var s step
	if p.stopping {
		// The next status decides; a stopped container passes no proof.
		return s
	}
	if p.passed[t] != "" {
		return p.decide(s)
	}
	window := p.began[t]
	status := containerStatus(p.last, p.container)
	switch t {
	case startup:
		if !started(status) {
			s.failed = &failure{message: fmt.Sprintf("the new startup probe has not passed: container %q has not started %s after the kubelet applied it", p.container, window)}
			return s
		}
	case readiness:
		if status == nil || !status.Ready {
			s.failed = &failure{message: fmt.Sprintf("the new readiness probe has not passed: container %q is not Ready %s after the kubelet applied it", p.container, window), event: "Unhealthy"}
			return s
		}
		p.passed[t] = fmt.Sprintf("the container stayed Ready through the probe's failure window (%s)", window)
	case liveness:
		probe := p.probes[liveness]
		if more := p.oldKill.Add(p.oldKillGrace + p.margin).Sub(now); !p.oldKill.IsZero() && more > 0 {
			// The old probe's kill is in flight: its restart decides.
			s.windows = map[probeType]time.Duration{liveness: more}
			return s
		}
		if more := p.failures.remaining(probe, now, p.margin); more > 0 && !p.extended {
			p.extended = true
			s.windows = map[probeType]time.Duration{liveness: more}
			return s
		}
		if p.failures.total == 0 && !p.failures.untold {
			p.passed[t] = fmt.Sprintf("no restart and no liveness failure through the probe's failure window (%s)", window)
		} else {
			p.passed[t] = fmt.Sprintf("no restart through the probe's failure window (%s)%s", window, p.failures.summary(probe))
		}
	}
	return p.decide(s)
}

// decide says whether every probe has passed, and, when its readiness
// probe changed on a Pod that was Ready, the Pod is Ready again.
func (p *proof) decide(s step) step {
	if !p.applied {
		return s
	}
	for t := range p.probes {
		if p.passed[t] == "" {
			return s
		}
	}
	s.done = p.probes[readiness] == nil || !p.readyAtChange || podutils.IsPodReady(p.last)
	return s
}

// restarted is the failure of a container that restarted before its new
// probes proved themselves, with how its last run ended and its last
// Killing event, which says why the kubelet stopped it.
func (p *proof) restarted(status *v1.ContainerStatus) *failure {
	message := fmt.Sprintf("container %q restarted before its new %s passed (restart count %d, was %d)", p.container, p.pending("probe", "probes"), status.RestartCount, p.restarts)
	if t := status.LastTerminationState.Terminated; t != nil {
		message += fmt.Sprintf("; its last run ended with %s, exit code %d", cmp.Or(t.Reason, "no reason"), t.ExitCode)
	}
	return &failure{message: message, event: "Killing", stopped: true}
}

// anyRuns reports whether a container of the Pod runs, or waits to start
// again.
func anyRuns(pod *v1.Pod) bool {
	for _, s := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		if s.State.Running != nil || s.State.Waiting != nil {
			return true
		}
	}
	return false
}

// stopped is the failure of a proof whose container stopped running, before
// the kubelet started the next one (after its back-off) or, with
// restartPolicy Never, for good.
func (p *proof) stopped(status *v1.ContainerStatus) *failure {
	message := fmt.Sprintf("container %q stopped before its new %s passed", p.container, p.pending("probe", "probes"))
	if t := cmp.Or(status.State.Terminated, status.LastTerminationState.Terminated); t != nil {
		message += fmt.Sprintf("; its run ended with %s, exit code %d", cmp.Or(t.Reason, "no reason"), t.ExitCode)
	}
	return &failure{message: message, event: "Killing", stopped: true}
}

// pending names the probes not proven yet: "readiness probe", "liveness and
// readiness probes".
func (p *proof) pending(one, many string) string {
	var types []probeType
	for _, t := range probeTypes {
		if p.probes[t] != nil && p.passed[t] == "" {
			types = append(types, t)
		}
	}
	if len(types) == 1 {
		return joinTypes(types) + " " + one
	}
	return joinTypes(types) + " " + many
}

// timedOut is the error of a proof that --wait-timeout ended.
func (p *proof) timedOut(timeout time.Duration, node string) error {
	applied := fmt.Sprintf("the kubelet applied generation %d", p.generation)
	within := fmt.Sprintf("within %s (--wait-timeout)", timeout)
	if p.backOffs > 0 {
		within = fmt.Sprintf("within %s (--wait-timeout, and %s of the kubelet's back-off before the container started again)", timeout+p.backOffs, p.backOffs)
	}
	switch {
	case !p.applied:
		return fmt.Errorf("the kubelet did not report generation %d %s: is the kubelet of node %q up, with MutableContainerProbes on?", p.generation, within, node)
	case p.stopping:
		return fmt.Errorf("%s, but every container of the Pod stopped (%s), and the kubelet of node %q has reported nothing since, %s", applied, p.stopped(containerStatus(p.last, p.container)).message, node, within)
	case p.probes[startup] == nil && !started(containerStatus(p.last, p.container)):
		return fmt.Errorf("%s, but container %q had not started %s, so its new %s not run", applied, p.container, within, p.pending("probe has", "probes have"))
	case slices.ContainsFunc(probeTypes, func(t probeType) bool { return p.probes[t] != nil && p.passed[t] == "" }):
		return fmt.Errorf("%s, but the new %s not passed %s", applied, p.pending("probe had", "probes had"), within)
	}
	return fmt.Errorf("%s, but the Pod, Ready before the change, was not Ready again %s", p.summary(), within)
}

// summary says what the proof found: the generation applied, and how each
// new probe passed.
func (p *proof) summary() string {
	parts := []string{fmt.Sprintf("the kubelet applied generation %d", p.generation)}
	parts = append(parts, p.notes...)
	for _, t := range probeTypes {
		if how := p.passed[t]; how != "" {
			parts = append(parts, fmt.Sprintf("the new %s probe passed: %s", t, how))
		}
	}
	return strings.Join(parts, "; ")
}

func started(status *v1.ContainerStatus) bool {
	return status != nil && status.Started != nil && *status.Started
}

// failureWindow is how long after the kubelet applied it a probe that fails
// every time has reached its failure threshold, and the margin.
func failureWindow(p *v1.Probe, margin time.Duration) time.Duration {
	attempts := max(p.FailureThreshold, p.SuccessThreshold, 1)
	return time.Duration(attempts)*time.Duration(max(p.PeriodSeconds, 1)+max(p.TimeoutSeconds, 1))*time.Second + margin
}

// remainingDelay is the part of a probe's initialDelaySeconds that is still
// to come: the kubelet counts it from the container's start, for an added
// probe and for the first container that runs a changed one, as a
// crash-looping container's next start does.
func remainingDelay(p *v1.Probe, status *v1.ContainerStatus, now time.Time) time.Duration {
	delay := time.Duration(p.InitialDelaySeconds) * time.Second
	if status != nil && status.State.Running != nil && !status.State.Running.StartedAt.IsZero() {
		delay -= now.Sub(status.State.Running.StartedAt.Time)
	}
	if delay <= 0 {
		return 0
	}
	// In whole seconds, rounded up: the window is said to the second.
	return (delay + time.Second - 1).Truncate(time.Second)
}

// errReadinessFailed is a Ready container that the new readiness probe
// made not Ready.
var errReadinessFailed = errors.New("the new readiness probe failed")

// readinessProof decides, from the Ready state of a container that the
// kubelet publishes after it applied a change of its readiness probe,
// whether the new probe passed; see prover.
type readinessProof struct {
	// added is set when the change added the probe: the kubelet then
	// starts it as failed, so not Ready is expected on the way.
	added bool
	// ready is the last Ready state seen.
	ready       bool
	sawNotReady bool
}

func newReadinessProof(added, ready bool) *readinessProof {
	return &readinessProof{added: added, ready: ready, sawNotReady: !ready}
}

// observe takes the next Ready state: the probe passed when the container
// turned Ready, and failed (errReadinessFailed) when a changed probe made
// a Ready container not Ready.
func (p *readinessProof) observe(ready bool) (bool, error) {
	was := p.ready
	p.ready = ready
	switch {
	case ready:
		return p.sawNotReady, nil
	case was && !p.added:
		return false, errReadinessFailed
	}
	p.sawNotReady = true
	return false, nil
}
