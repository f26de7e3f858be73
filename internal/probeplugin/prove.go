package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/kubectl/pkg/util/podutils"
)

// prover proves a change on its Pod, the run's fourth stage: that the
// kubelet applied it, and that a new readiness probe passed.
//
// The kubelet applies a Pod's probe changes before it reports the Pod's
// status, so status.observedGeneration at or past the change's generation
// means the new probes are in force. It does not mean that a new readiness
// probe passed: after a change of the handler, timeout or thresholds, the
// kubelet keeps the container's Ready state until the new probe reaches
// its success or failure threshold, and a readiness probe that fails every
// time leaves a Ready container Ready for failureThreshold periods. So
// after a readiness change, the prover watches the container's Ready state
// from the moment the kubelet reported the change's generation on:
//
//   - Ready turning from false to true: only the new probe can do that,
//     since the kubelet discards the results of the old one once it has
//     applied the change. Passed.
//   - Ready turning from true to false, for a changed probe: the new probe
//     reached its failure threshold. Failed, at once.
//   - Ready still true at the end of the new probe's failure window,
//     max(failureThreshold, successThreshold) × (periodSeconds +
//     timeoutSeconds) and a margin after that moment: a new probe that
//     failed every time would have made it not Ready by then. Passed.
//   - Not Ready at the end of the window: the new probe did not succeed.
//     Failed.
//   - The container restarting: a new container starts not Ready,
//     whatever its probe, so nothing is proven. Failed, with how the
//     container's last run ended.
//
// The old state cannot pass for the new probe: it counts only when it
// lasts through the window in which the new probe, applied already, would
// have ended it. The Pod must also be Ready as a whole before the next Pod
// changes. The Unhealthy events of the new probe are not a signal: events
// reach the API server late, and are dropped when a Pod has many, so the
// failure of an old probe can arrive after the change. The prover shows
// the last one when a Pod fails, to say why.
type prover struct {
	client kubernetes.Interface
	// timeout bounds each wait: --wait-timeout.
	timeout time.Duration
	// margin is added to a readiness probe's failure window, for the
	// kubelet to publish the Pod's status and for it to arrive here.
	margin time.Duration
}

// window is how long after the kubelet applied it a readiness probe that
// fails every time has made a Ready container not Ready.
func (w *prover) window(p *v1.Probe) time.Duration {
	attempts := max(p.FailureThreshold, p.SuccessThreshold, 1)
	return time.Duration(attempts)*time.Duration(max(p.PeriodSeconds, 1)+max(p.TimeoutSeconds, 1))*time.Second + w.margin
}

// errTimeout is a wait that --wait-timeout ended.
var errTimeout = errors.New("timed out")

// errWindowEnded ends the wait for a readiness probe at the end of its
// failure window.
var errWindowEnded = errors.New("the failure window ended")

// prove waits until the kubelet reports the generation of stored, the
// Pod as a change of before stored it, and, when the change touched the
// readiness probe of the container, until the new probe passed and the Pod
// is Ready. It returns what it proved, in words. A Pod that is deleted,
// recreated, terminating or finished meanwhile is a podGoneError.
func (w *prover) prove(ctx context.Context, before, stored *v1.Pod, container string) (string, error) {
	if stored.Spec.NodeName == "" {
		return "not on a node yet: its kubelet starts it with the new probes", nil
	}
	ctx, cancel := watchtools.ContextWithOptionalTimeout(ctx, w.timeout)
	defer cancel()
	windowCtx, endWindow := context.WithCancelCause(ctx)
	defer endWindow(nil)

	generation := stored.Generation
	applied := fmt.Sprintf("the kubelet applied generation %d", generation)
	probe := probesOf(stored, container)[readiness]
	readinessChanged := slices.Contains(changedProbes(before, stored, container), readiness)
	window := time.Duration(0)
	var (
		proof *readinessProof
		last  *v1.Pod
		// restarts is the container's restart count when the proof began.
		restarts int32
		result   = applied
		timer    *time.Timer
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	_, err := w.until(windowCtx, stored, func(p *v1.Pod) (bool, error) {
		last = p
		if proof != nil {
			if s := containerStatus(p, container); s != nil && s.RestartCount != restarts {
				// A new container starts not Ready, whatever its probe.
				return false, errRestarted
			}
			return proof.observe(readyOf(p, container))
		}
		if p.Status.ObservedGeneration < generation {
			return false, nil
		}
		status := containerStatus(p, container)
		switch {
		case !readinessChanged:
			return true, nil
		case probe == nil:
			result += "; without a readiness probe the container counts as Ready"
			return true, nil
		case status == nil || status.Started == nil || !*status.Started:
			// The new readiness probe runs once the container has started:
			// wait for that. A container that never starts ends the wait at
			// its timeout, with an error.
			return false, nil
		}
		// From here on, only the new probe changes the container's Ready
		// state.
		window = w.window(probe)
		timer = time.AfterFunc(window, func() { endWindow(errWindowEnded) })
		proof = newReadinessProof(probesOf(before, container)[readiness] == nil, status.Ready)
		restarts = status.RestartCount
		return false, nil
	})
	switch {
	case err == nil:
	case errors.Is(err, errTimeout) && errors.Is(context.Cause(windowCtx), errWindowEnded):
		if !readyOf(last, container) {
			return "", w.failed(ctx, last, container, fmt.Sprintf("the new readiness probe has not passed: container %q is not Ready %s after the kubelet applied it", container, window))
		}
	case errors.Is(err, errTimeout) && proof == nil && last != nil && last.Status.ObservedGeneration >= generation:
		return "", fmt.Errorf("%s, but container %q had not started within %s (--wait-timeout), so its new readiness probe has not run", applied, container, w.timeout)
	case errors.Is(err, errTimeout) && proof == nil:
		return "", fmt.Errorf("the kubelet did not report generation %d within %s (--wait-timeout): is the kubelet of node %q up, with MutableContainerProbes on?", generation, w.timeout, stored.Spec.NodeName)
	case errors.Is(err, errTimeout):
		return "", fmt.Errorf("%s, but the new readiness probe had not passed within %s (--wait-timeout)", applied, w.timeout)
	case errors.Is(err, errRestarted):
		return "", w.restarted(ctx, last, container, restarts)
	case errors.Is(err, errReadinessFailed):
		return "", w.failed(ctx, last, container, fmt.Sprintf("the new readiness probe failed: container %q is not Ready any more", container))
	default:
		return "", err
	}
	if proof == nil {
		return result, nil
	}
	result += "; the new readiness probe passed"
	if proof.sawNotReady {
		result += ": the container turned Ready"
	} else {
		result += fmt.Sprintf(": the container stayed Ready through the probe's failure window (%s)", window)
	}
	if !podutils.IsPodReady(last) {
		if _, err := w.until(ctx, last, func(p *v1.Pod) (bool, error) { return podutils.IsPodReady(p), nil }); err != nil {
			if errors.Is(err, errTimeout) {
				return "", fmt.Errorf("%s, but the Pod was not Ready within %s (--wait-timeout)", result, w.timeout)
			}
			return "", err
		}
	}
	return result, nil
}

// errReadinessFailed is a Ready container that the new readiness probe
// made not Ready.
var errReadinessFailed = errors.New("the new readiness probe failed")

// errRestarted is a container that restarted before its new readiness
// probe proved itself.
var errRestarted = errors.New("the container restarted")

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

func readyOf(pod *v1.Pod, container string) bool {
	s := containerStatus(pod, container)
	return s != nil && s.Ready
}

// failed returns the error of a readiness probe that failed, with the
// container's last Unhealthy event, which says why.
func (w *prover) failed(ctx context.Context, pod *v1.Pod, container, message string) error {
	if e := lastEvent(ctx, w.client, pod, container, "Unhealthy"); e != nil {
		message += fmt.Sprintf("; its last Unhealthy event, %s ago: %s", duration.HumanDuration(time.Since(eventTime(e))), firstLine(e.Message, 200))
	}
	return errors.New(message)
}

// restarted returns the error of a container that restarted while its new
// readiness probe was checked, with how its last run ended and the
// container's last Killing event, which says why the kubelet stopped it.
func (w *prover) restarted(ctx context.Context, pod *v1.Pod, container string, restarts int32) error {
	s := containerStatus(pod, container)
	message := fmt.Sprintf("container %q restarted before its new readiness probe passed (restart count %d, was %d)", container, s.RestartCount, restarts)
	if t := s.LastTerminationState.Terminated; t != nil {
		message += fmt.Sprintf("; its last run ended with %s, exit code %d", cmp.Or(t.Reason, "no reason"), t.ExitCode)
	}
	if e := lastEvent(ctx, w.client, pod, container, "Killing"); e != nil {
		message += fmt.Sprintf("; its last Killing event, %s ago: %s", duration.HumanDuration(time.Since(eventTime(e))), firstLine(e.Message, 200))
	}
	return errors.New(message)
}

// until watches the Pod until cond holds, and returns it. It ends with
// errTimeout when ctx ends, and with a podGoneError when the Pod is
// deleted, recreated, terminating or finished.
func (w *prover) until(ctx context.Context, pod *v1.Pod, cond func(*v1.Pod) (bool, error)) (*v1.Pod, error) {
	pods := w.client.CoreV1().Pods(pod.Namespace)
	field := fields.OneTermEqualSelector(metav1.ObjectNameField, pod.Name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = field
			return pods.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = field
			return pods.Watch(ctx, opts)
		},
	}
	var last *v1.Pod
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
		if reason := leaving(p); reason != "" {
			return false, &podGoneError{reason: reason}
		}
		last = p
		return cond(p)
	})
	if err != nil && ctx.Err() != nil {
		return last, errTimeout
	}
	return last, err
}

// lastEvent returns the Pod's latest event of the reason about the
// container, or about the Pod as a whole; nil when there is none or it
// cannot be read.
func lastEvent(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, container string, reasons ...string) *v1.Event {
	list, err := client.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)).String(),
	})
	if err != nil {
		return nil
	}
	return latestProbeEvent(list.Items, pod, container, reasons)
}

// latestProbeEvent returns the latest of events with one of the reasons
// about the Pod's container, or about the Pod as a whole.
func latestProbeEvent(events []v1.Event, pod *v1.Pod, container string, reasons []string) *v1.Event {
	_, fieldPath, err := findContainer(pod, container)
	if err != nil {
		return nil
	}
	var latest *v1.Event
	for i := range events {
		e := &events[i]
		if e.InvolvedObject.UID != pod.UID || !slices.Contains(reasons, e.Reason) ||
			e.InvolvedObject.FieldPath != "" && e.InvolvedObject.FieldPath != fieldPath {
			continue
		}
		if latest == nil || eventTime(e).After(eventTime(latest)) {
			latest = e
		}
	}
	return latest
}

// eventTime is when an event last happened.
func eventTime(e *v1.Event) time.Time {
	t := e.LastTimestamp.Time
	if e.Series != nil && e.Series.LastObservedTime.After(t) {
		t = e.Series.LastObservedTime.Time
	}
	if e.EventTime.After(t) {
		t = e.EventTime.Time
	}
	if t.IsZero() {
		t = e.FirstTimestamp.Time
	}
	return t
}

// firstLine returns the first line of s, at most n characters of it.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
