package probeplugin

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The printed undo goes to the same cluster as the same user: it carries
// every connection and identity flag given, and the namespace, but never a
// secret, which it says to give again.
func TestUndoCommandCarriesFlags(t *testing.T) {
	root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
	set, _, err := root.Find([]string{"set"})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.ParseFlags([]string{
		"--as=alice", "--as-group=oncall", "--as-group=sre", "--cluster=prod", "--user=alice",
		"--server=https://prod.example:6443", "--context=prod", "--kubeconfig=/home/alice/.kube/prod",
		"-n", "ignored", "--token=s3cr3t", "--liveness",
	}); err != nil {
		t.Fatal(err)
	}
	u := newUndoCommand(set.InheritedFlags(), []string{"deployment/web"}, "", "web", "20261204-101502-7f3a")
	want := "kubectl probe undo deployment/web -n web --as alice --as-group oncall --as-group sre --cluster prod --context prod --kubeconfig /home/alice/.kube/prod --server https://prod.example:6443 --user alice --run 20261204-101502-7f3a # give --token again: it is not printed"
	if diff := cmp.Diff(want, u.forRun()); diff != "" {
		t.Errorf("undo (-want +got):\n%s", diff)
	}
	if got := u.forPod("web-1"); !strings.HasPrefix(got, "kubectl probe undo pod/web-1 -n web --as alice ") || strings.Contains(got, "s3cr3t") {
		t.Errorf("undo of one Pod: %s", got)
	}
}

// Before the pre-check, a run says where it works and on what: the context,
// the namespace, and how many Pods of which workload.
func TestReportTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		context string
		t       *targets
		want    string
	}{{
		name:    "a workload",
		context: "prod",
		t:       &targets{pods: namedPods("a", "b", "c"), workloads: []string{"deployment.apps/web"}},
		want:    `target: 3 Pods of deployment.apps/web in namespace "ns" of context "prod"` + "\n",
	}, {
		name: "one Pod, without a context",
		t:    &targets{pods: namedPods("a")},
		want: `target: pod/a in namespace "ns"` + "\n",
	}, {
		name:    "Pods a selector selects, some skipped",
		context: "prod",
		t:       &targets{pods: namedPods("a", "b"), skipped: []skippedPod{{pod: webPod(), reason: "terminating"}}},
		want:    `target: 2 Pods in namespace "ns" of context "prod" (1 more skipped)` + "\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			r := &reporter{errOut: &errOut}
			r.target(tc.context, "ns", tc.t)
			if diff := cmp.Diff(tc.want, errOut.String()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}

// The client's rate is bounded, near kubectl's: a run of 500 Pods must not
// send its requests as fast as it can.
func TestClientRate(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := newConfigFlags(io.Discard)
	flags.KubeConfig = &kubeconfig
	config, err := flags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if config.QPS != clientQPS || config.Burst != clientBurst || config.QPS <= 0 || config.QPS > 50 {
		t.Errorf("QPS %v, burst %d; want %v and %d, and a rate at most kubectl's 50 of discovery", config.QPS, config.Burst, clientQPS, clientBurst)
	}
}
