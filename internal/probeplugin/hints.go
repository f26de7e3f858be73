package probeplugin

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// hint returns a line that says what most likely caused an error of the API
// server, and what to do, or "" when the error is not a common one.
func hint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "pod updates may not change fields other than") && !strings.Contains(msg, "livenessProbe`"):
		return "the API server does not let probes change: turn the MutableContainerProbes feature gate on in every kube-apiserver"
	case strings.Contains(msg, "requires features MutableContainerProbes which are not available on node"):
		return "the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod"
	case strings.Contains(msg, "probes cannot be changed on a terminating pod"),
		strings.Contains(msg, "probes cannot be changed on a pod in phase"):
		return "the Pod is terminating or has finished, and keeps its probes: change the probes of its controller's template, or of the Pod that replaces it"
	case strings.Contains(msg, "probes cannot be changed on a mirror pod"):
		return "the Pod is the mirror of a static Pod: change the static Pod's manifest on its node"
	case strings.Contains(msg, "violates PodSecurity"):
		return "the Pod with the new probe breaks the namespace's Pod Security level (a probe may not set a host at baseline and restricted): leave out the host"
	case apierrors.IsForbidden(err) && strings.Contains(msg, "cannot patch resource \"pods\""):
		return "you may not patch Pods in this namespace: ask for the patch verb on pods (check with kubectl auth can-i patch pods)"
	}
	return ""
}
