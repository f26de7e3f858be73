package probeplugin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"
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
	u := newCommandLine(set.InheritedFlags(), set.LocalFlags(), []string{"deployment/web"}, "", "web", "prod", []string{"/home/alice/.kube/prod"}, "linux")
	u.run = "20261204-101502-7f3a"
	want := "kubectl probe undo deployment/web -n web --as=alice --as-group=oncall --as-group=sre --cluster=prod --context prod --kubeconfig /home/alice/.kube/prod --server=https://prod.example:6443 --user=alice --run 20261204-101502-7f3a # give --token again: it is not printed"
	if diff := cmp.Diff(want, u.undo()); diff != "" {
		t.Errorf("undo (-want +got):\n%s", diff)
	}
	if got := u.undoPod("web-1"); !strings.HasPrefix(got, "kubectl probe undo pod/web-1 -n web --as=alice ") || strings.Contains(got, "s3cr3t") {
		t.Errorf("undo of one Pod: %s", got)
	}
}

// A file that a flag names, relative to the directory that the run ran in,
// as kubectl reads it, is named by its absolute path: a command pasted in
// another directory reads the same file.
func TestCommandsNameFilesOfFlagsAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
	set, _, err := root.Find([]string{"set"})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.ParseFlags([]string{"--certificate-authority=certs/ca.crt", "--client-certificate=/etc/me.crt", "--client-key=me.key", "--liveness"}); err != nil {
		t.Fatal(err)
	}
	u := newCommandLine(set.InheritedFlags(), set.LocalFlags(), []string{"deployment/web"}, "", "web", "", nil, "linux")
	u.run = "20261204-101502-7f3a"
	want := "kubectl probe undo deployment/web -n web --certificate-authority=" + filepath.Join(dir, "certs", "ca.crt") + " --client-certificate=/etc/me.crt --client-key=" + filepath.Join(dir, "me.key") + " --run 20261204-101502-7f3a"
	if diff := cmp.Diff(want, u.undo()); diff != "" {
		t.Errorf("undo (-want +got):\n%s", diff)
	}
}

// kubectl's --kubeconfig names one file: the commands of a run that read
// several, which $KUBECONFIG names, are for those. A POSIX shell sets
// $KUBECONFIG in front of a command; on Windows, PowerShell sets it for the
// session first.
func TestCommandsOfSeveralKubeconfigs(t *testing.T) {
	root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
	set, _, err := root.Find([]string{"set"})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.ParseFlags([]string{"--token=s3cr3t", "--liveness"}); err != nil {
		t.Fatal(err)
	}
	kubeconfigs := []string{"/home/alice/.kube/config", "/home/alice/.kube/prod"}
	kubeconfig := strings.Join(kubeconfigs, string(filepath.ListSeparator))
	for goos, want := range map[string]string{
		"linux":   "KUBECONFIG=" + kubeconfig + " kubectl probe undo deployment/web -n web --context prod --run 20261204-101502-7f3a # give --token again: it is not printed",
		"darwin":  "KUBECONFIG=" + kubeconfig + " kubectl probe undo deployment/web -n web --context prod --run 20261204-101502-7f3a # give --token again: it is not printed",
		"windows": "$env:KUBECONFIG='" + kubeconfig + "'; kubectl probe undo deployment/web -n web --context prod --run 20261204-101502-7f3a # give --token again: it is not printed",
	} {
		u := newCommandLine(set.InheritedFlags(), set.LocalFlags(), []string{"deployment/web"}, "", "web", "prod", kubeconfigs, goos)
		u.run = "20261204-101502-7f3a"
		if diff := cmp.Diff(want, u.undo()); diff != "" {
			t.Errorf("%s: undo (-want +got):\n%s", goos, diff)
		}
	}
}

// The printed commands go to the cluster that the run used, however it was
// chosen: the kubeconfig's current context, not given on the command line,
// is named with --context, and the kubeconfig file that the run loaded is
// named with --kubeconfig, as an absolute path, whether --kubeconfig gave
// it, $KUBECONFIG named it, or it is the default, ~/.kube/config; so that a
// command pasted after either changed does not go to another cluster. The
// files that $KUBECONFIG names, when it names several that are there, are
// set in front of the command, as a POSIX shell reads it.
func TestCommandsNameTheContext(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	config := func(name string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: prod, context: {cluster: c, user: u, namespace: web}}]
current-context: prod
`), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kubeconfig, home, other := config("prod config"), config("home"), config("other")
	defaultFile := clientcmd.RecommendedHomeFile
	t.Cleanup(func() { clientcmd.RecommendedHomeFile = defaultFile })
	clientcmd.RecommendedHomeFile = home
	for _, tc := range []struct {
		name  string
		env   string
		flags []string
		want  string
	}{{
		name:  "$KUBECONFIG",
		env:   kubeconfig,
		flags: []string{"--as=alice"},
		want:  "kubectl probe undo deployment/web -n web --as=alice --context prod --kubeconfig '" + kubeconfig + "' --run 20261204-101502-7f3a",
	}, {
		name:  "given, relative",
		env:   other,
		flags: []string{"--context=prod", "--kubeconfig", "prod config"},
		want:  "kubectl probe undo deployment/web -n web --context prod --kubeconfig '" + kubeconfig + "' --run 20261204-101502-7f3a",
	}, {
		name: "the default",
		want: "kubectl probe undo deployment/web -n web --context prod --kubeconfig " + home + " --run 20261204-101502-7f3a",
	}, {
		name: "$KUBECONFIG of a file that is there, and one that is not",
		env:  filepath.Join(dir, "missing") + string(filepath.ListSeparator) + kubeconfig,
		want: "kubectl probe undo deployment/web -n web --context prod --kubeconfig '" + kubeconfig + "' --run 20261204-101502-7f3a",
	}, {
		name: "$KUBECONFIG of two files",
		env:  kubeconfig + string(filepath.ListSeparator) + other,
		want: "KUBECONFIG='" + kubeconfig + string(filepath.ListSeparator) + other + "' kubectl probe undo deployment/web -n web --context prod --run 20261204-101502-7f3a",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			// A run's options, and its command under the root's flags, as
			// NewCmdProbe makes them.
			configFlags := newConfigFlags(io.Discard)
			root := &cobra.Command{Use: "probe"}
			configFlags.AddFlags(root.PersistentFlags())
			o := newChangeOptions(genericiooptions.NewTestIOStreamsDiscard(), "probes set", true)
			set := &cobra.Command{Use: "set"}
			o.addFlags(set)
			root.AddCommand(set)
			if err := set.ParseFlags(append(tc.flags, "--liveness")); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(cmdutil.NewFactory(configFlags), set, []string{"deployment/web"}); err != nil {
				t.Fatal(err)
			}
			o.cmdline.run = "20261204-101502-7f3a"
			if diff := cmp.Diff(tc.want, o.cmdline.undo()); diff != "" {
				t.Errorf("undo (-want +got):\n%s", diff)
			}
		})
	}
}

// The command that finishes an interrupted undo is the same undo: it
// carries the flags given to it, --force too, without which it would
// refuse what the undo went on with.
func TestUndoFinishCarriesItsFlags(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: prod, context: {cluster: c, user: u, namespace: web}}]
current-context: prod
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The options of undo, and its command under the root's flags, as
	// NewCmdProbe makes them.
	configFlags := newConfigFlags(io.Discard)
	root := &cobra.Command{Use: "probe"}
	configFlags.AddFlags(root.PersistentFlags())
	o := &undoOptions{changeOptions: newChangeOptions(genericiooptions.NewTestIOStreamsDiscard(), "probes put back", false)}
	undo := &cobra.Command{Use: "undo"}
	o.targetFlags.add(undo, "")
	o.addRunFlags(undo)
	undo.Flags().StringVar(&o.runID, "run", "", "")
	undo.Flags().BoolVar(&o.force, "force", false, "")
	root.AddCommand(undo)
	if err := undo.ParseFlags([]string{"--kubeconfig", kubeconfig, "--force", "--wait=applied", "--run", "20261204-101502-7f3a"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmdutil.NewFactory(configFlags), undo, []string{"deployment/web"}); err != nil {
		t.Fatal(err)
	}
	o.cmdline.undoing = o.runID
	want := "to finish putting back run 20261204-101502-7f3a: kubectl probe undo deployment/web -n web --context prod --kubeconfig " + kubeconfig + " --force=true --wait=applied --run 20261204-101502-7f3a\n"
	if diff := cmp.Diff(want, o.cmdline.finishing()); diff != "" {
		t.Errorf("finish (-want +got):\n%s", diff)
	}
}

// The command that finishes a run of undo given the deprecated --timeout
// gives the flag that replaced it, --wait-timeout, once, with the value
// that the run used.
func TestUndoFinishRenamesDeprecatedFlags(t *testing.T) {
	for _, flags := range [][]string{
		{"--timeout=5m"},
		{"--wait-timeout=1m", "--timeout=5m"},
	} {
		root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
		undo, _, err := root.Find([]string{"undo"})
		if err != nil {
			t.Fatal(err)
		}
		// Not the deprecation's warning.
		undo.Flags().SetOutput(io.Discard)
		if err := undo.ParseFlags(flags); err != nil {
			t.Fatal(err)
		}
		u := newCommandLine(undo.InheritedFlags(), undo.LocalFlags(), []string{"deployment/web"}, "", "web", "", nil, "linux")
		u.undoing = "20261204-101502-7f3a"
		want := "kubectl probe undo deployment/web -n web --wait-timeout=5m0s --run 20261204-101502-7f3a"
		if got := u.finish(u.targets); got != want {
			t.Errorf("%s: finish is %s, want %s", strings.Join(flags, " "), got, want)
		}
	}
}

// Every kubectl probe command that a run prints reads back, through the
// command's own parser, as the flags it carries: a flag whose value is
// optional (--wait, --dry-run, --force) takes the word after it as an
// argument rather than as its value, so each flag is one word,
// --NAME=VALUE. Here the undo of a run of set, and the command that
// finishes a run of undo.
func TestPrintedCommandsParseBack(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: prod, context: {cluster: c, user: u, namespace: web}}]
current-context: prod
`), 0o600); err != nil {
		t.Fatal(err)
	}
	connection := []string{"--kubeconfig", kubeconfig, "--as=alice", "--as-group=oncall", "--as-group=sre", "--token=s3cr3t"}
	// The options of a command, and the command under the root's flags, as
	// NewCmdProbe makes them.
	complete := func(name string, add func(*cobra.Command, *changeOptions), flags ...string) *commandLine {
		configFlags := newConfigFlags(io.Discard)
		root := &cobra.Command{Use: "probe"}
		configFlags.AddFlags(root.PersistentFlags())
		o := newChangeOptions(genericiooptions.NewTestIOStreamsDiscard(), "probes set", false)
		cmd := &cobra.Command{Use: name}
		add(cmd, o)
		root.AddCommand(cmd)
		if err := cmd.ParseFlags(slices.Concat(connection, flags)); err != nil {
			t.Fatal(err)
		}
		if err := o.Complete(cmdutil.NewFactory(configFlags), cmd, []string{"deployment/web"}); err != nil {
			t.Fatal(err)
		}
		return o.cmdline
	}
	set := complete("set", func(cmd *cobra.Command, o *changeOptions) { o.addFlags(cmd) }, "--liveness", "--wait=applied")
	set.run = "20261204-101502-7f3a"
	var runID string
	undo := complete("undo", func(cmd *cobra.Command, o *changeOptions) {
		o.targetFlags.add(cmd, "")
		o.addRunFlags(cmd)
		cmd.Flags().StringVar(&runID, "run", "", "")
		cmd.Flags().Bool("force", false, "")
	}, "--force", "--wait=applied", "--dry-run=server", "-o", "jsonpath={.items[*].result}", "--run", "20261204-101502-7f3a")
	undo.undoing = runID

	common := map[string]string{"namespace": "web", "context": "prod", "kubeconfig": kubeconfig, "as": "alice", "as-group": "[oncall,sre]", "run": "20261204-101502-7f3a"}
	finish := maps.Clone(common)
	maps.Copy(finish, map[string]string{"force": "true", "wait": "applied", "dry-run": "server", "output": "jsonpath={.items[*].result}"})
	for _, tc := range []struct {
		name    string
		command string
		want    map[string]string
	}{
		{"the undo of a run", set.undo(), common},
		{"the undo of one Pod", set.undoPod("web-1"), common},
		{"the finish of a run of undo", undo.finish(undo.targets), finish},
	} {
		t.Run(tc.name, func(t *testing.T) {
			words := shellWords(t, tc.command)
			if len(words) < 3 || !slices.Equal(words[:2], []string{"kubectl", "probe"}) {
				t.Fatalf("%s: not a kubectl probe command", tc.command)
			}
			cmd, args, err := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0").Find(words[2:])
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatalf("%s: %v", tc.command, err)
			}
			if got := cmd.Flags().Args(); len(got) != 1 || !strings.HasPrefix(got[0], "deployment/web") && !strings.HasPrefix(got[0], "pod/web-1") {
				t.Errorf("%s: arguments %q, want the target only", tc.command, got)
			}
			for name, want := range tc.want {
				if got := cmd.Flags().Lookup(name).Value.String(); got != want {
					t.Errorf("%s: --%s=%s, want %s", tc.command, name, got, want)
				}
			}
		})
	}
}

// shellWords splits a command into its words as a POSIX shell reads the
// commands that shellJoin quotes: words in single quotes, in which a quote
// is a quote that ends them, a backslash and the quote, and a quote that
// goes on; and a comment at the end.
func shellWords(t *testing.T, command string) []string {
	t.Helper()
	var (
		words        []string
		word         strings.Builder
		inWord, open bool
	)
	for i := 0; i < len(command); i++ {
		switch c := command[i]; {
		case open && c == '\'':
			open = false
		case open:
			word.WriteByte(c)
		case c == '\'':
			open, inWord = true, true
		case c == '\\' && i+1 < len(command):
			i++
			word.WriteByte(command[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if open {
		t.Fatalf("%s: a quote is not closed", command)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// Before the pre-check, a run says where it works and on what: the context,
// the namespace, and how many Pods, or which one named, of which workloads,
// those whose limits it keeps to, however the Pods were named or selected.
func TestReportTarget(t *testing.T) {
	workload := func(name string) *workloadFloor {
		return &workloadFloor{workload: &unstructured.Unstructured{}, floor: floor{name: name}}
	}
	none := &workloadFloor{}
	for _, tc := range []struct {
		name    string
		context string
		t       *targets
		want    string
	}{{
		name:    "a workload",
		context: "prod",
		t:       &targets{pods: namedPods("a", "b", "c"), floors: []*workloadFloor{workload("deployment.apps/web")}},
		want:    `target: 3 Pods of deployment.apps/web in namespace "ns" of context "prod"` + "\n",
	}, {
		name: "one Pod named, without a context",
		t:    &targets{pods: namedPods("a"), named: []string{"a"}, floors: []*workloadFloor{none}},
		want: `target: pod/a in namespace "ns"` + "\n",
	}, {
		name: "one Pod named, of a workload",
		t:    &targets{pods: namedPods("a"), named: []string{"a"}, floors: []*workloadFloor{workload("statefulset.apps/db")}},
		want: `target: pod/a of statefulset.apps/db in namespace "ns"` + "\n",
	}, {
		name:    "Pods a selector selects, of two workloads and of none, some skipped",
		context: "prod",
		t: &targets{pods: namedPods("a", "b", "c"), skipped: []skippedPod{{pod: webPod(), reason: "terminating"}},
			floors: []*workloadFloor{workload("deployment.apps/web"), workload("deployment.apps/api"), none}},
		want: `target: 3 Pods of deployment.apps/web, deployment.apps/api and no workload in namespace "ns" of context "prod" (1 more skipped)` + "\n",
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

// Each command's flags are completed and validated before any request: a
// mistake is said at once, with exit status 1, and flags that are right
// go on to the cluster, here one that is not there.
func TestFlagValidation(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ns}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	probeFile := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tcp := probeFile("tcp.yaml", "tcpSocket: {port: 8080}\n")
	twice := probeFile("twice.yaml", "tcpSocket: {port: 8080}\nsuccessThreshold: 2\n")
	const unreachable = "127.0.0.1:1"
	// see ends a usage error of kubectl probe set, as kubectl's.
	const see = "\nSee 'kubectl probe set -h' for help and examples\n"
	for _, tc := range []struct {
		args  []string
		stdin string
		// want is in the error printed.
		want string
	}{
		{[]string{"set", "web"}, "", "error: choose the probes with --liveness, --readiness or --startup\n"},
		{[]string{"set", "--liveness", "--timeout-seconds=3"}, "", "error: name a Pod, a workload (daemonset/NAME, deployment/NAME, job/NAME, replicaset/NAME, statefulset/NAME, or any other that controls Pods), or select Pods with -l\n"},
		{[]string{"set", "web", "-l", "app=web", "--liveness", "--timeout-seconds=3"}, "", "error: name Pods and workloads, or select Pods with -l, not both\n"},
		{[]string{"set", "web", "--liveness"}, "", "error: nothing to change: give a handler"},
		{[]string{"set", "web", "--liveness", "--get-url=http://:8080/", "--open-tcp=8080"}, "", "error: give one handler: --get-url, --open-tcp, --grpc-port or -- COMMAND\n"},
		{[]string{"set", "web", "--liveness", "--grpc-port=9090", "--", "cat", "/ok"}, "", "error: give one handler: --get-url, --open-tcp, --grpc-port or -- COMMAND\n"},
		{[]string{"set", "web", "--readiness", "--get-url=ftp://:21/"}, "", "error: --get-url=ftp://:21/: the scheme must be http or https\n"},
		{[]string{"set", "web", "--liveness", "--grpc-port=0", "--dry-run=client"}, "", "error: --grpc-port=0: must be between 1 and 65535, inclusive\n"},
		{[]string{"set", "web", "--liveness", "--grpc-port=65536"}, "", "error: --grpc-port=65536: must be between 1 and 65535, inclusive\n"},
		{[]string{"set", "web", "--liveness", "--remove", "--timeout-seconds=3"}, "", "error: --remove removes the probes: give it without a handler, fields or --probe-file\n"},
		{[]string{"set", "web", "--liveness", "--probe-file", tcp, "--timeout-seconds=3", "--header=Host: a"}, "", "error: --probe-file gives the whole probe: give it without --header, --timeout-seconds\n"},
		{[]string{"set", "web", "--liveness", "--readiness", "--probe-file", twice}, "", "error: --probe-file=" + twice + ", as a liveness probe: successThreshold: must be 1 for a liveness probe\n"},
		{[]string{"set", "web", "--liveness", "--probe-file=-"}, "httpGet: {port: 8080}\nfailureTreshold: 3\n", `error: --probe-file=-: not a probe: error unmarshaling JSON: while decoding JSON: json: unknown field "failureTreshold"`},
		{[]string{"set", "web", "--liveness", "--bogus"}, "", "error: unknown flag: --bogus\nSee 'kubectl probe set -h' for help and examples\n"},
		{[]string{"set", "web", "--liveness", "--period-seconds=0"}, "", "error: --period-seconds=0: give at least 1\n"},
		{[]string{"set", "web", "--readiness", "--success-threshold=-1"}, "", "error: --success-threshold=-1: give at least 1\n"},
		{[]string{"set", "web", "--liveness", "--initial-delay-seconds=-5"}, "", "error: --initial-delay-seconds=-5: give at least 0\n"},
		{[]string{"set", "web", "--readiness", "--startup", "--success-threshold=2"}, "", "error: --success-threshold=2: must be 1 for a startup probe\n"},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--max-in-flight=0"}, "", "error: --max-in-flight=0: give a number of Pods, at least 1, or a percentage of the replicas, such as 25%\n"},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait=sometimes"}, "", "error: --wait=sometimes: give proven, applied or none\n"},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait-timeout=-1s"}, "", "error: --wait-timeout=-1s: give a duration, or 0 to wait as long as it takes\n"},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait=false", "--undo-on-failure"}, "", "error: --undo-on-failure puts back a change that fails its proof: not with --wait=false, which proves none\n"},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "-o", "table"}, "", `error: unable to match a printer suitable for the output format "table"`},
		// A flag given empty, as by a variable that is not set, says
		// nothing: it is refused, rather than taken as left out.
		{[]string{"set", "web", "--liveness", "--get-url="}, "", "error: --get-url is empty: give it a value, or leave it out" + see},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--open-tcp="}, "", "error: --open-tcp is empty: give it a value, or leave it out" + see},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--probe-file="}, "", "error: --probe-file is empty: give it a value, or leave it out" + see},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--container="}, "", "error: --container is empty: give it a value, or leave it out" + see},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--max-in-flight="}, "", "error: --max-in-flight is empty: give it a value, or leave it out" + see},
		// So is a command whose first word is empty (-- "$CMD"), which
		// would run nothing, and a startup probe of a started container
		// would be proven without running.
		{[]string{"set", "web", "--startup", "--", ""}, "", "error: -- is followed by an empty word, not a command: give the probe's command after it, or leave it out" + see},
		{[]string{"undo", "deployment/web", "--run="}, "", "error: --run is empty: give it a value, or leave it out\nSee 'kubectl probe undo -h' for help and examples\n"},
		// So is a flag that chooses the cluster, the namespace or the user,
		// which kubectl would take as the current context's.
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--context="}, "", "error: --context is empty: give it a value, or leave it out" + see},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--namespace="}, "", "error: --namespace is empty: give it a value, or leave it out" + see},
		{[]string{"undo", "deployment/web", "--as="}, "", "error: --as is empty: give it a value, or leave it out\nSee 'kubectl probe undo -h' for help and examples\n"},
		{[]string{"disable", "web"}, "", "error: choose the probes with --liveness, --readiness or --startup\n"},
		{[]string{"restore", "-l", "app=web", "deployment/web", "--liveness"}, "", "error: name Pods and workloads, or select Pods with -l, not both\n"},
		{[]string{"undo"}, "", "error: name a Pod, a workload"},
		{[]string{"show"}, "", "error: name a Pod, a workload"},
		{[]string{"show", "web", "-o", "table"}, "", "error: -o table: give one of custom-columns, custom-columns-file, go-template"},
		// Right: the cluster is asked.
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait=applied", "--max-in-flight=25%"}, "", unreachable},
		{[]string{"set", "web", "--liveness", "--initial-delay-seconds=0"}, "", unreachable},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait", "-o", "jsonpath={.items[*].result}"}, "", unreachable},
		{[]string{"set", "web", "--liveness", "--timeout-seconds=3", "--wait=false"}, "", unreachable},
		{[]string{"set", "web", "--startup", "--probe-file=-"}, "exec: {command: [cat, /tmp/started]}\nfailureThreshold: 30\n", unreachable},
		{[]string{"set", "web", "--readiness", "--remove", "--dry-run=server"}, "", unreachable},
		{[]string{"set", "web", "--readiness", "--grpc-port=9090", "--grpc-service="}, "", unreachable},
		{[]string{"show", "web", "--output="}, "", unreachable},
		{[]string{"undo", "deployment/web", "--run", "20261204-101502-7f3a", "-o", "name"}, "", unreachable},
		{[]string{"show", "-l", "app=web", "-o", "custom-columns=POD:.metadata.name"}, "", unreachable},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			streams := genericiooptions.IOStreams{In: strings.NewReader(tc.stdin), Out: &out, ErrOut: &errOut}
			// The kubeconfig goes first: after --, it would be a word of the command.
			status := Execute(context.Background(), streams, "v0.0.0", append([]string{"--kubeconfig", kubeconfig}, tc.args...))
			if status != 1 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit status %d, printed\n%s\nwant 1, and %q in it", status, errOut.String(), tc.want)
			}
		})
	}

	// So is --, last, with no command after it.
	var errOut bytes.Buffer
	status := Execute(context.Background(), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, "v0.0.0", []string{"set", "web", "--liveness", "--timeout-seconds=3", "--kubeconfig", kubeconfig, "--"})
	if want := "error: -- is not followed by a command: give the probe's command after it, or leave it out" + see; status != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("-- alone: exit status %d, printed\n%s\nwant 1, and %q in it", status, errOut.String(), want)
	}

	// An interrupt before the first change, here while the targets are
	// read, exits as one during a run does.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errOut.Reset()
	status = Execute(ctx, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut}, "v0.0.0", []string{"set", "web", "--liveness", "--timeout-seconds=3", "--kubeconfig", kubeconfig})
	if status != exitInterrupted {
		t.Errorf("interrupted: exit status %d, printed\n%s\nwant %d", status, errOut.String(), exitInterrupted)
	}
}

// --max-in-flight's help says what the limits do: a workload's limit of 0,
// or a budget that allows no disruption, still lets one Pod change at a
// time, which the flag cannot lower either.
func TestMaxInFlightHelp(t *testing.T) {
	deployment := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), Strategy: appsv1.DeploymentStrategy{
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0))},
	}}}
	deployment.Name = "web"
	budget := &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("100%"))}}
	if w, d := workloadLimit("deployment.apps/web", asUnstructured(t, deployment)), disruptionLimit(budget, 3); w.n != 1 || d.n != 1 {
		t.Fatalf("limits %v and %v, want 1 each", w, d)
	}
	set, _, err := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0").Find([]string{"set"})
	if err != nil {
		t.Fatal(err)
	}
	if usage, want := set.Flags().Lookup("max-in-flight").Usage, "the workload's limit (its maxUnavailable) and a PodDisruptionBudget's, each at least 1"; !strings.Contains(usage, want) {
		t.Errorf("--max-in-flight: %q\nwant in it %q", usage, want)
	}
}

// The help's exit status 1 is a command of which no change stands, which
// is so of a run that stops with each Pod that it changed put back by
// --undo-on-failure, or deleted before its put-back, as of one that changed
// none. Its status 2 is a run with a change that stands, or may: one whose
// put-back --undo-on-failure left alone, as someone else overwrote the new
// probe since, may stand under theirs or not.
func TestExitStatusHelp(t *testing.T) {
	c := newCluster(namedPods("a", "b")...)
	requireResourceVersion(c)
	r, _, errOut := newRunner(c, moveReadiness)
	r.undoOnFailure, r.report.yes = true, true
	r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
		obj, err := c.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
		if err != nil {
			return "", err
		}
		pod := obj.(*v1.Pod)
		pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Path = "/third"
		pod.ResourceVersion = "8"
		if err := c.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, "ns"); err != nil {
			return "", err
		}
		return "", errors.New("the new readiness probe failed")
	}
	if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); exitStatus(err) != exitStopped || !strings.Contains(errOut.String(), "not put back") {
		t.Errorf("overwritten: exit status %d (%v), want %d, and pod/a not put back\n%s", exitStatus(err), err, exitStopped, errOut)
	}

	for name, meanwhile := range map[string]func(c *cluster) error{
		"put back": func(*cluster) error { return nil },
		"deleted before its put-back": func(c *cluster) error {
			return c.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "a")
		},
	} {
		c := newCluster(namedPods("a", "b")...)
		r, _, errOut := newRunner(c, moveReadiness)
		r.undoOnFailure, r.report.yes = true, true
		r.prove = func(context.Context, *v1.Pod, *v1.Pod, string) (string, error) {
			if err := meanwhile(c); err != nil {
				return "", err
			}
			return "", errors.New("the new readiness probe failed")
		}
		if err := r.run(context.Background(), &targets{pods: namedPods("a", "b")}); exitStatus(err) != 1 {
			t.Errorf("%s: exit status %d (%v), want 1\n%s", name, exitStatus(err), err, errOut)
		}
	}
	help := strings.Join(strings.Fields(NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0").Long), " ")
	for _, want := range []string{
		"1 when no change of the command stands: it failed before it changed a Pod (such as a pre-check that refused Pods), skipped every one, or each Pod that it changed was put back (--undo-on-failure), deleted or recreated;",
		"2 when a run stopped, with a change of it that stands or may stand (a patch whose answer was lost, of a Pod that could not be read again; a change whose put-back --undo-on-failure left alone, as someone else changed the Pod since),",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help:\n%s\nwant in it %q", help, want)
		}
	}
}

// A flag's help is a sentence or two, as kubectl's are: the guide has the
// details. set has no -f: kubectl's -f is --filename, of the objects to
// work on, not of a probe.
func TestFlagHelp(t *testing.T) {
	root := NewCmdProbe(genericiooptions.NewTestIOStreamsDiscard(), "v0.0.0")
	for _, cmd := range root.Commands() {
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if len(f.Usage) > 300 {
				t.Errorf("%s --%s: help of %d characters, want at most 300", cmd.Name(), f.Name, len(f.Usage))
			}
		})
	}
	set, _, err := root.Find([]string{"set"})
	if err != nil {
		t.Fatal(err)
	}
	if f := set.Flags().ShorthandLookup("f"); f != nil {
		t.Errorf("set -f is --%s, want no -f", f.Name)
	}
}
