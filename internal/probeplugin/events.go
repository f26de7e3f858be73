package probeplugin

import (
	"context"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// The events of a Pod's probes, as show lists them and the prover reads
// them.

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
