package probeplugin

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The errors below are the API server's, as it builds them.
func TestCauseOf(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	forbidden := func(name, msg string) error { return apierrors.NewForbidden(pods, name, errors.New(msg)) }
	invalid := func(errs ...*field.Error) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "web-1", errs)
	}
	readinessField := field.NewPath("spec", "containers").Index(0).Child("readinessProbe")
	const (
		gateOff = "pod updates may not change fields other than `spec.containers[*].image`,`spec.activeDeadlineSeconds`"
		diff    = "\n@@ -112,7 +112,13 @@\n-   \"Env\": null,"
	)
	for _, tc := range []struct {
		name     string
		err      error
		wantText string
		wantHint string // a part of the hint; empty for none
		wantSkip string
	}{{
		name:     "gate off on the API server",
		err:      invalid(field.Forbidden(field.NewPath("spec"), gateOff+diff)),
		wantText: "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.activeDeadlineSeconds`",
		wantHint: "turn the MutableContainerProbes feature gate on in every kube-apiserver",
	}, {
		name:     "gate on, another field changed",
		err:      invalid(field.Forbidden(field.NewPath("spec"), gateOff+",`spec.containers[*].livenessProbe`"+diff)),
		wantText: "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.activeDeadlineSeconds`,`spec.containers[*].livenessProbe`",
	}, {
		name:     "terminating",
		err:      invalid(field.Forbidden(readinessField, "probes cannot be changed on a terminating pod")),
		wantText: "spec.containers[0].readinessProbe: Forbidden: probes cannot be changed on a terminating pod",
		wantSkip: "terminating",
	}, {
		name:     "finished",
		err:      invalid(field.Forbidden(readinessField, "probes cannot be changed on a pod in phase Failed")),
		wantText: "spec.containers[0].readinessProbe: Forbidden: probes cannot be changed on a pod in phase Failed",
		wantSkip: "finished (Failed)",
	}, {
		name:     "mirror Pod",
		err:      invalid(field.Forbidden(readinessField, "probes cannot be changed on a mirror pod")),
		wantText: "spec.containers[0].readinessProbe: Forbidden: probes cannot be changed on a mirror pod",
		wantHint: "change the static Pod's manifest",
	}, {
		name:     "an invalid probe",
		err:      invalid(field.Invalid(readinessField.Child("successThreshold"), 2, "must be 1")),
		wantText: "spec.containers[0].readinessProbe.successThreshold: Invalid value: 2: must be 1",
	}, {
		name:     "node without the feature",
		err:      forbidden("web-1", `pod update requires features MutableContainerProbes which are not available on node "node-1"`),
		wantText: `pod update requires features MutableContainerProbes which are not available on node "node-1"`,
		wantHint: "the kubelet of the Pod's node cannot apply probe changes",
		wantSkip: `pod update requires features MutableContainerProbes which are not available on node "node-1"; the kubelet of the Pod's node cannot apply probe changes: turn MutableContainerProbes on in that kubelet (or upgrade it), or replace the Pod`,
	}, {
		name:     "Pod Security: the probe's host",
		err:      forbidden("web-1", `violates PodSecurity "baseline:latest": probe or lifecycle host (container "app" uses probe or lifecycle host "169.254.169.254")`),
		wantText: `violates PodSecurity "baseline:latest": probe or lifecycle host (container "app" uses probe or lifecycle host "169.254.169.254")`,
		wantHint: `a probe or lifecycle handler names a host, which the namespace's Pod Security level "baseline:latest" forbids: leave out the host`,
	}, {
		name:     "Pod Security: a level raised after the Pod was created",
		err:      forbidden("web-1", `violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true)`),
		wantText: `violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false`,
		wantHint: `the Pod breaks the namespace's Pod Security level "restricted:latest" for reasons no probe causes (allowPrivilegeEscalation != false, runAsNonRoot != true), most likely because the level was raised after the Pod was created`,
	}, {
		name:     "Pod Security: both",
		err:      forbidden("web-1", `violates PodSecurity "baseline:latest": hostPath volumes (volume "data"), probe or lifecycle host (container "app" uses probe or lifecycle host "10.0.0.1")`),
		wantHint: "for reasons no probe causes (hostPath volumes), most likely because the level was raised after the Pod was created: no change of its probes is admitted until it meets the level; replace the Pod, or exempt it; and leave out the probe's host",
	}, {
		name:     "RBAC",
		err:      forbidden("web-1", `User "alice" cannot patch resource "pods" in API group "" in the namespace "e2e"`),
		wantText: `User "alice" cannot patch resource "pods" in API group "" in the namespace "e2e"`,
		wantHint: "ask for the patch verb on pods",
	}, {
		name:     "RBAC for another verb",
		err:      forbidden("web-1", `User "alice" cannot get resource "pods"`),
		wantText: `User "alice" cannot get resource "pods"`,
	}, {
		name:     "deleted meanwhile",
		err:      &podGoneError{reason: "deleted"},
		wantText: "deleted",
		wantSkip: "deleted",
	}, {
		name:     "not from the API server",
		err:      fmt.Errorf(`has no container "db"`),
		wantText: `has no container "db"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := causeOf(tc.err)
			if !strings.Contains(got.text, tc.wantText) {
				t.Errorf("text = %q, want one containing %q", got.text, tc.wantText)
			}
			if strings.Contains(got.text, "web-1") || strings.Contains(got.text, "@@") {
				t.Errorf("text = %q: it names the Pod or carries the diff, and would not group", got.text)
			}
			if tc.wantHint == "" && got.hint != "" || !strings.Contains(got.hint, tc.wantHint) {
				t.Errorf("hint = %q, want one containing %q", got.hint, tc.wantHint)
			}
			if got.skip != tc.wantSkip {
				t.Errorf("skip = %q, want %q", got.skip, tc.wantSkip)
			}
		})
	}
}
