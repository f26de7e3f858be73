package probeplugin

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestHint(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	invalid := func(msg string) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "web", field.ErrorList{field.Forbidden(field.NewPath("spec"), msg)})
	}
	const gateOff = "pod updates may not change fields other than `spec.containers[*].image`,`spec.activeDeadlineSeconds`"
	for _, tc := range []struct {
		name string
		err  error
		want string // a part of the hint; empty for none
	}{
		{"gate off on the API server", invalid(gateOff), "turn the MutableContainerProbes feature gate on in every kube-apiserver"},
		{"gate on, another field changed", invalid(gateOff + ",`spec.containers[*].livenessProbe`"), ""},
		{"node without the feature", apierrors.NewForbidden(pods, "web", errors.New(`pod update requires features MutableContainerProbes which are not available on node "node-1"`)), "the kubelet of the Pod's node cannot apply probe changes"},
		{"terminating", invalid("probes cannot be changed on a terminating pod"), "the Pod is terminating or has finished"},
		{"finished", invalid("probes cannot be changed on a pod in phase Succeeded"), "the Pod is terminating or has finished"},
		{"mirror Pod", invalid("probes cannot be changed on a mirror pod; change the static pod's manifest instead"), "change the static Pod's manifest"},
		{"Pod Security", apierrors.NewForbidden(pods, "web", errors.New(`violates PodSecurity "baseline:latest": probe or lifecycle host`)), "Pod Security level"},
		{"RBAC", apierrors.NewForbidden(pods, "web", errors.New(`User "alice" cannot patch resource "pods" in API group "" in the namespace "e2e"`)), "ask for the patch verb on pods"},
		{"RBAC for another verb", apierrors.NewForbidden(pods, "web", errors.New(`User "alice" cannot get resource "pods"`)), ""},
		{"an invalid probe", invalid("must be 1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hint(tc.err)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("hint = %q, want one containing %q", got, tc.want)
			}
		})
	}
}
