//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestPluginScale measures kubectl probe on the 500 Pods of a ReplicaSet:
// how many requests it sends, through a proxy that counts them, and how
// long it takes, 50 Pods at a time and one at a time. Each Pod is checked
// (a server dry run, and the new liveness probe tried through the API
// server's Pod proxy, against an app in the test that stands in for the
// Pods' containers) before any Pod changes; once it ended, the ReplicaSet's
// Pods are listed again. It runs only with
// KEP_PLUGIN_SCALE=1; docs/performance.md has the figures.
func TestPluginScale(t *testing.T) {
	if os.Getenv("KEP_PLUGIN_SCALE") != "1" {
		t.Skip("set KEP_PLUGIN_SCALE=1 to measure kubectl probe on 500 Pods")
	}
	const pods = 500
	a := startApp(t)
	c := startCluster(t, true)
	newNamespace(t, c, "scale", nil)
	app := map[string]string{"app": "web"}
	spec := appSpecOn(a.port)
	rs := createReplicaSet(t, c, "scale", "web", spec, app, nil)

	// The Pods belong to the ReplicaSet, and no node: no controller
	// manager or scheduler runs. Their status says they run, at the app's
	// address. A client without client-side throttling creates them 20 at
	// a time.
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	config.QPS = -1
	fast := kubernetes.NewForConfigOrDie(config)
	fastCluster := &cluster{bin: c.bin, kubeconfig: c.kubeconfig, client: fast}
	names := make(chan string)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for name := range names {
				running(t, fast, createAppPod(t, fastCluster, "scale", name, spec, app, rs, "ReplicaSet"), a.ip)
			}
		})
	}
	for i := range pods {
		names <- fmt.Sprintf("web-%03d", i)
	}
	close(names)
	wg.Wait()

	p := startProxy(t, c, "scale")
	plugin(t) // built before the clock starts
	for _, run := range []struct {
		maxInFlight int
		timeout     int
	}{{50, 5}, {1, 6}} {
		p.Reset()
		tried := a.count("/healthz")
		start := time.Now()
		r := mustProbe(t, c, p.Kubeconfig, "set", "replicaset/web", "--liveness", fmt.Sprintf("--timeout-seconds=%d", run.timeout),
			fmt.Sprintf("--max-in-flight=%d", run.maxInFlight), "--wait=false")
		elapsed := time.Since(start)

		if n := strings.Count(r.stdout, " probes set\n"); n != pods {
			t.Errorf("--max-in-flight=%d: %d Pods printed as changed, want %d", run.maxInFlight, n, pods)
		}
		if want := fmt.Sprintf("pre-check: the new liveness probe succeeds on %d Pods", pods); !strings.Contains(r.stderr, want) {
			t.Errorf("--max-in-flight=%d: stderr lacks %q:\n%s", run.maxInFlight, want, r.stderr)
		}
		if n := strings.Count(r.stderr, "Warning: "); n != 1 {
			t.Errorf("--max-in-flight=%d: %d warnings printed, want the server's warning once", run.maxInFlight, n)
		}
		list, err := fast.CoreV1().Pods("scale").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pod := range list.Items {
			if got := pod.Spec.Containers[0].LivenessProbe.TimeoutSeconds; got != int32(run.timeout) {
				t.Fatalf("--max-in-flight=%d: %s has liveness timeoutSeconds %d, want %d", run.maxInFlight, pod.Name, got, run.timeout)
			}
		}

		prefix := "/api/v1/namespaces/scale/pods/"
		dryRuns := dryRuns(p, prefix)
		patches := count(p, http.MethodPatch, prefix)
		proxied := 0
		for _, req := range p.Requests() {
			if req.Method == http.MethodGet && strings.HasPrefix(req.Path, prefix) && strings.Contains(req.Path, "/proxy/") {
				proxied++
			}
		}
		getRS := count(p, http.MethodGet, "/apis/apps/v1/namespaces/scale/replicasets/web")
		listPods := count(p, http.MethodGet, "/api/v1/namespaces/scale/pods")
		reviews := count(p, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
		total := len(p.Requests())
		discovery := total - dryRuns - patches - proxied - getRS - listPods - reviews
		t.Logf("--max-in-flight=%d: %d Pods in %.2fs; %d requests: %d dry runs, %d tries through the Pod proxy, %d PATCH of Pods, %d GET of the ReplicaSet, %d LIST of Pods, %d access review, %d discovery",
			run.maxInFlight, pods, elapsed.Seconds(), total, dryRuns, proxied, patches, getRS, listPods, reviews, discovery)
		// The Pods are listed twice: for the run, and at its end, for
		// Pods that the ReplicaSet created meanwhile.
		if dryRuns != pods || proxied != pods || patches != pods || getRS != 1 || listPods != 2 || reviews != 1 {
			t.Errorf("--max-in-flight=%d: want a dry run, a try and a PATCH per Pod (%d each), one GET of the ReplicaSet, two LISTs of its Pods and one access review", run.maxInFlight, pods)
		}
		if n := a.count("/healthz") - tried; n != pods {
			t.Errorf("--max-in-flight=%d: the app was asked %d times, want once per Pod", run.maxInFlight, n)
		}
	}
}
