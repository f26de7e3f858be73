package probeplugin

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// cause is why a Pod cannot take a change, in words that Pods refused for
// the same reason share, so that a run prints one line per cause.
type cause struct {
	text string
	// hint says what most likely to do about it; "" when there is nothing
	// to add.
	hint string
	// skip is set for a Pod that has left or is leaving (deleted,
	// recreated, terminating, finished), or whose node's kubelet cannot
	// apply probe changes: it is skipped, not failed.
	skip string
}

// causeOf reads the cause of an error: from the API server's status, its
// reason and causes (the field, the cause's type and message), rather than
// from the text of the whole error.
func causeOf(err error) cause {
	var (
		gone *podGoneError
		left *leftAlone
	)
	switch {
	case errors.As(err, &gone):
		return cause{text: gone.reason, skip: gone.reason}
	case errors.As(err, &left):
		return cause{text: left.reason, skip: left.reason}
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return cause{text: err.Error()}
	}
	s := status.Status()
	if s.Reason == metav1.StatusReasonInvalid && s.Details != nil && len(s.Details.Causes) > 0 {
		return invalidCause(s.Details.Causes)
	}
	text := s.Message
	if s.Details != nil && s.Details.Name != "" {
		// pods "web-1" is forbidden: ..., which the Pod's name would keep
		// from grouping with the same refusal of another Pod.
		text = strings.TrimPrefix(text, fmt.Sprintf("%s %q is forbidden: ", s.Details.Kind, s.Details.Name))
	}
	c := cause{text: text}
	if s.Reason == metav1.StatusReasonForbidden {
		switch {
		case strings.HasPrefix(text, "violates PodSecurity "):
			c.hint = podSecurityHint(text)
		case strings.Contains(text, "requires features MutableContainerProbes which are not available on node"):
			// A cluster whose kubelets are half upgraded: the Pods on the
			// new kubelets change, these wait for theirs.
			c.hint = "the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod"
			c.skip = text + "; " + c.hint
		case strings.Contains(text, `cannot patch resource "pods"`):
			c.hint = "you may not patch Pods in this namespace: ask for the patch verb on pods (check with kubectl auth can-i patch pods)"
		}
	}
	return c
}

// invalidCause reads the causes of a refusal of an invalid Pod update.
func invalidCause(causes []metav1.StatusCause) cause {
	var (
		c     cause
		lines []string
	)
	for _, sc := range causes {
		// The first line: the rest of a message may be a diff of the Pod.
		message, _, _ := strings.Cut(sc.Message, "\n")
		if sc.Field != "" {
			lines = append(lines, sc.Field+": "+message)
		} else {
			lines = append(lines, message)
		}
		if sc.Type != metav1.CauseTypeForbidden {
			continue
		}
		// The message of a field error starts with its type.
		message = strings.TrimPrefix(message, field.ErrorTypeForbidden.String()+": ")
		switch {
		case message == "probes cannot be changed on a terminating pod":
			c.skip = "terminating"
		case strings.HasPrefix(message, "probes cannot be changed on a pod in phase "):
			c.skip = fmt.Sprintf("finished (%s)", strings.TrimPrefix(message, "probes cannot be changed on a pod in phase "))
		case strings.HasPrefix(message, "probes cannot be changed on a mirror pod"):
			c.hint = "the Pod is the mirror of a static Pod: change the static Pod's manifest on its node"
		case sc.Field == "spec" && strings.HasPrefix(message, "pod updates may not change fields other than") && !strings.Contains(message, "livenessProbe`"):
			c.hint = "the API server does not let probes change: turn the MutableContainerProbes feature gate on in every kube-apiserver"
		}
	}
	c.text = strings.Join(lines, "; ")
	return c
}

// podSecurityHint reads the checks that a Pod failed from Pod Security
// admission's refusal, "violates PodSecurity "LEVEL": CHECK (DETAIL),
// CHECK, ...", and says what to do: leave out the host when that is all
// the change broke, and otherwise that the Pod breaks the level whatever
// its probes (a level raised after the Pod was created).
func podSecurityHint(text string) string {
	level, checks, ok := strings.Cut(strings.TrimPrefix(text, "violates PodSecurity "), ": ")
	if !ok {
		return ""
	}
	const probeHost = "probe or lifecycle host"
	var others []string
	host := false
	for _, check := range splitTopLevel(checks) {
		name, _, _ := strings.Cut(check, " (")
		if name == probeHost {
			host = true
		} else {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return fmt.Sprintf("a probe or lifecycle handler names a host, which the namespace's Pod Security level %s forbids: leave out the host", level)
	}
	hint := fmt.Sprintf("the Pod breaks the namespace's Pod Security level %s for reasons no probe causes (%s), most likely because the level was raised after the Pod was created: no change of its probes is admitted until it meets the level; replace the Pod, or exempt it",
		level, strings.Join(others, ", "))
	if host {
		hint += "; and leave out the probe's host"
	}
	return hint
}

// splitTopLevel splits "a (x, y), b" at the commas outside parentheses.
func splitTopLevel(s string) []string {
	var (
		parts []string
		depth int
		start int
	)
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}
