//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// webPod returns the manifest of the web Pod with probes, YAML lines
// indented as fields of its container, appended.
func webPod(probes string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: e2e
spec:
  containers:
  - name: web
    image: registry.k8s.io/e2e-test-images/agnhost:2.53
` + probes
}

var podManifest = webPod(`    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      timeoutSeconds: 1
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
`)

const specDiffError = "pod updates may not change fields other than"

func httpProbe(path string, timeout int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(8080), Scheme: v1.URISchemeHTTP,
		}},
		TimeoutSeconds: timeout, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
	}
}

// createPod creates the e2e namespace, its default service account (there is
// no controller manager to do it) and the web Pod, with kubectl apply.
func createPod(t *testing.T, c *cluster) *v1.Pod {
	t.Helper()
	c.mustKubectl(t, "", "create", "namespace", "e2e")
	c.mustKubectl(t, "", "-n", "e2e", "create", "serviceaccount", "default")
	c.mustKubectl(t, podManifest, "apply", "-f", "-")
	return c.getPod(t)
}

func (c *cluster) getPod(t *testing.T) *v1.Pod {
	t.Helper()
	pod, err := c.client.CoreV1().Pods("e2e").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// expectProbes checks the stored probes of the web container, and that the
// update bumped the generation.
func expectProbes(t *testing.T, pod *v1.Pod, generation int64, liveness, readiness *v1.Probe) {
	t.Helper()
	if pod.Generation != generation {
		t.Errorf("generation = %d, want %d", pod.Generation, generation)
	}
	if diff := cmp.Diff(liveness, pod.Spec.Containers[0].LivenessProbe); diff != "" {
		t.Errorf("livenessProbe (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(readiness, pod.Spec.Containers[0].ReadinessProbe); diff != "" {
		t.Errorf("readinessProbe (-want +got):\n%s", diff)
	}
}

func TestProbeUpdatesGateOn(t *testing.T) {
	c := startCluster(t, true)
	created := createPod(t, c)
	expectProbes(t, created, 1, httpProbe("/healthz", 1), httpProbe("/healthz", 1))

	// An operator relaxes the liveness timeout during an incident.
	c.mustKubectl(t, "", "-n", "e2e", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"web","livenessProbe":{"timeoutSeconds":10}}]}}`)
	expectProbes(t, c.getPod(t), 2, httpProbe("/healthz", 10), httpProbe("/healthz", 1))

	// Another manager moves readiness to /readyz with server-side apply. It
	// conflicts with kubectl apply's ownership until it forces it.
	readyz := webPod(`    readinessProbe:
      httpGet: {path: /readyz, port: 8080}
`)
	out, err := c.kubectl(t, readyz, "apply", "--server-side", "--field-manager", "ops", "-f", "-")
	if err == nil || !strings.Contains(out, "conflict") {
		t.Fatalf("expected a field manager conflict, got err=%v:\n%s", err, out)
	}
	c.mustKubectl(t, readyz, "apply", "--server-side", "--field-manager", "ops", "--force-conflicts", "-f", "-")
	expectProbes(t, c.getPod(t), 3, httpProbe("/healthz", 10), httpProbe("/readyz", 1))

	// kubectl replace removes the liveness probe to stop a restart loop.
	manifest := c.mustKubectl(t, "", "-n", "e2e", "get", "pod", "web", "-o", "yaml")
	manifest = removeLivenessProbe(t, manifest)
	c.mustKubectl(t, manifest, "replace", "-f", "-")
	expectProbes(t, c.getPod(t), 4, nil, httpProbe("/readyz", 1))

	// A change that also touches an immutable field stores nothing.
	before := c.getPod(t)
	out, err = c.kubectl(t, "", "-n", "e2e", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"web","readinessProbe":{"periodSeconds":5},"workingDir":"/srv"}]}}`)
	if err == nil || !strings.Contains(out, specDiffError) {
		t.Fatalf("expected the mixed update to be rejected, got err=%v:\n%s", err, out)
	}
	if after := c.getPod(t); after.ResourceVersion != before.ResourceVersion {
		t.Errorf("a rejected update changed resourceVersion from %s to %s", before.ResourceVersion, after.ResourceVersion)
	}
}

func TestProbeUpdatesGateOff(t *testing.T) {
	c := startCluster(t, false)
	created := createPod(t, c)
	out, err := c.kubectl(t, "", "-n", "e2e", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"web","livenessProbe":{"timeoutSeconds":10}}]}}`)
	if err == nil || !strings.Contains(out, specDiffError) {
		t.Fatalf("expected the probe change to be rejected with the gate off, got err=%v:\n%s", err, out)
	}
	if strings.Contains(out, "livenessProbe`") {
		t.Errorf("with the gate off the message must not list probe fields:\n%s", out)
	}
	// Other updates work as they always did.
	c.mustKubectl(t, "", "-n", "e2e", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"web","image":"registry.k8s.io/e2e-test-images/agnhost:2.54"}]}}`)
	expectProbes(t, c.getPod(t), created.Generation+1, httpProbe("/healthz", 1), httpProbe("/healthz", 1))
}

// removeLivenessProbe deletes the livenessProbe block from a Pod manifest
// that kubectl printed, as a user editing the file would.
func removeLivenessProbe(t *testing.T, manifest string) string {
	t.Helper()
	lines := strings.Split(manifest, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		if trimmed != "livenessProbe:" {
			out = append(out, line)
			continue
		}
		indent := len(line) - len(trimmed)
		for i+1 < len(lines) && len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent {
			i++
		}
	}
	result := strings.Join(out, "\n")
	if result == manifest {
		t.Fatalf("the manifest has no livenessProbe:\n%s", manifest)
	}
	return result
}
