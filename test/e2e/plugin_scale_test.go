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
// long it takes, 50 Pods at a time and one at a time. It runs only with
// KEP_PLUGIN_SCALE=1; docs/performance.md has the figures.
func TestPluginScale(t *testing.T) {
	if os.Getenv("KEP_PLUGIN_SCALE") != "1" {
		t.Skip("set KEP_PLUGIN_SCALE=1 to measure kubectl probe on 500 Pods")
	}
	const pods = 500
	c := startCluster(t, true)
	newNamespace(t, c, "scale", nil)
	app := map[string]string{"app": "web"}
	rs := createReplicaSet(t, c, "scale", "web", appSpec(), app, nil)

	// The Pods belong to the ReplicaSet, and no node: no controller
	// manager or scheduler runs. A client without client-side throttling
	// creates them 20 at a time.
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
				createAppPod(t, fastCluster, "scale", name, appSpec(), app, rs, "ReplicaSet")
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
		p.reset()
		start := time.Now()
		r := mustProbe(t, c, p.kubeconfig, "set", "replicaset/web", "--liveness", fmt.Sprintf("--timeout-seconds=%d", run.timeout),
			fmt.Sprintf("--max-in-flight=%d", run.maxInFlight), "--wait=false")
		elapsed := time.Since(start)

		if n := strings.Count(r.stdout, " probes set\n"); n != pods {
			t.Errorf("--max-in-flight=%d: %d Pods printed as changed, want %d", run.maxInFlight, n, pods)
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

		patches := p.count(http.MethodPatch, "/api/v1/namespaces/scale/pods/")
		getRS := p.count(http.MethodGet, "/apis/apps/v1/namespaces/scale/replicasets/web")
		listPods := p.count(http.MethodGet, "/api/v1/namespaces/scale/pods")
		total := len(p.snapshot())
		discovery := total - patches - getRS - listPods
		t.Logf("--max-in-flight=%d: %d Pods in %.2fs; %d requests: %d PATCH of Pods, %d GET of the ReplicaSet, %d LIST of Pods, %d discovery",
			run.maxInFlight, pods, elapsed.Seconds(), total, patches, getRS, listPods, discovery)
		if patches != pods || getRS != 1 || listPods != 1 {
			t.Errorf("--max-in-flight=%d: want one PATCH per Pod (%d), one GET of the ReplicaSet and one LIST of its Pods", run.maxInFlight, pods)
		}
	}
}
