// Package probeplugin is kubectl probe, the kubectl plugin that shows and
// changes the liveness, readiness and startup probes of running Pods
// (KEP-6318, feature gate MutableContainerProbes) with ordinary Pod
// patches.
package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// Execute runs kubectl probe, of the version given, with args and returns
// its exit status.
func Execute(ctx context.Context, streams genericiooptions.IOStreams, version string, args []string) int {
	cmd := NewCmdProbe(streams, version)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errReported) {
		fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
	}
	status := exitStatus(err)
	if status == 1 && ctx.Err() != nil {
		// An interrupt ended the command before it changed a Pod.
		status = exitInterrupted
	}
	return status
}

// errReported is returned by a command whose error has been printed.
var errReported = errors.New("reported")

// The exit statuses of kubectl probe, as its help says: 0 when it did what
// was asked, 1 when no change of it stands, and:
const (
	// exitStopped is a run that stopped, with a change of it standing
	// (podRun.changed), or that may stand: that may have been stored
	// (outcomeUnknownError), or whose put-back was left alone
	// (podRun.leftAlone), at a Pod that failed (that one included, when its change stands), or
	// before a batch that the floor of Ready Pods held back.
	exitStopped = 2
	// exitInterrupted is a command that an interrupt ended.
	exitInterrupted = 3
)

// reportedStatus is errReported with another exit status than 1.
type reportedStatus int

func (s reportedStatus) Error() string        { return errReported.Error() }
func (s reportedStatus) Is(target error) bool { return target == errReported }

// exitStatus is the exit status of a command that returned err.
func exitStatus(err error) int {
	var s reportedStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &s):
		return int(s)
	}
	return 1
}

// NewCmdProbe returns the kubectl probe command, of the version given.
func NewCmdProbe(streams genericiooptions.IOStreams, version string) *cobra.Command {
	configFlags := newConfigFlags(streams.ErrOut)
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Show and change the probes of running Pods",
		Long: `Show and change the liveness, readiness and startup probes of running Pods.

The API server must have the MutableContainerProbes feature gate on
(KEP-6318), and the kubelet of each Pod's node too. Each change is one Pod
patch, conditioned on the Pod's resourceVersion; the Pods' controllers and
their templates are not changed.

TARGET is a Pod's name, pod/NAME, or a workload, which stands for the Pods
it controls now:
  ` + strings.Join(workloadArgs(), ", ") + `,
or any other object that controls Pods through owner references, directly
or through other controllers, such as rollout.argoproj.io/NAME. Or select
Pods with -l SELECTOR instead. Pods that are terminating or have finished
are skipped, and so are Pods on a node that is not Ready, whose kubelet
would neither apply a change nor report it, unless --wait=none.

Before it changes any Pod, a command checks every one: the API server
validates each change without storing it (a server dry run), and a new
liveness or readiness probe is tried against its Pod. A Pod whose probes
someone else changes after its check is left as it is, and skipped. After each change,
it waits until the Pod's kubelet reports that it applied it, and until each
new probe has proved itself through its failure window (--wait=applied
proves the Pods of each template, a ReplicaSet's or a revision's, until
each new probe was proven on one of them). The first Pod
changes alone, and the first of each other workload without others of
its own, then batches that double up to the workload's limit (or a lower
--max-in-flight), each once every change of the batch before it is proven,
and, so proven, never more Pods out of readiness at once than the workload
allows, but for a change that only relaxes liveness and startup probes,
which takes none out. Each
run keeps on each Pod it changes what it replaced, and kubectl probe undo
puts it back; a run that finished prints the change of the workload's Pod
template that gives the Pods that replace these the new probes too.

Exit status: 0 when every Pod is as asked (some perhaps skipped, as said); 1
when no change of the command stands: it failed before it changed a Pod
(such as a pre-check that refused Pods), skipped every one, or each Pod that
it changed was put back (--undo-on-failure), deleted or recreated; 2 when a
run stopped, with a change of it that stands or may stand (a patch whose
answer was lost, of a Pod that could not be read again; a change whose
put-back --undo-on-failure left alone, as someone else changed the Pod
since), at a Pod that failed or before a batch that would have taken too
many Pods out of readiness; 3 when an interrupt (SIGINT, SIGTERM) ended the
command.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl probe",
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	// As kubectl's: a wrong flag says where the help is.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.UsageErrorf(c, "%v", err)
	})
	configFlags.AddFlags(cmd.PersistentFlags())
	f := cmdutil.NewFactory(configFlags)
	cmd.AddCommand(
		newCmdShow(f, streams),
		newCmdSet(f, streams),
		newCmdDisable(f, streams),
		newCmdRestore(f, streams),
		newCmdUndo(f, streams),
		newCmdVersion(streams, version),
	)
	registerCompletions(f, cmd)
	return cmd
}

// clientQPS and clientBurst bound the rate of the client's requests: the
// rate of kubectl's discovery client, 50 a second (its other requests keep
// to 5, which would make a run of 500 Pods, 2 rate-limited requests each
// and the wait's, take minutes), so that a run of 500 Pods does not send as
// fast as it can. The streams of the pre-check are bounded apart
// (precheckWorkers).
const (
	clientQPS   = 50
	clientBurst = 100
)

// newConfigFlags returns the flags that choose the cluster and the user, as
// kubectl's, whose client prints server warnings on errOut as kubectl does,
// each text once, and keeps to clientQPS.
func newConfigFlags(errOut io.Writer) *genericclioptions.ConfigFlags {
	warnings := rest.NewWarningWriter(errOut, rest.WarningWriterOptions{
		Deduplicate: true,
		Color:       printers.AllowsColorOutput(errOut),
	})
	return genericclioptions.NewConfigFlags(true).WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		c.WarningHandler = warnings
		c.QPS, c.Burst = clientQPS, clientBurst
		return c
	})
}

func newCmdVersion(streams genericiooptions.IOStreams, version string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl probe",
		Args:  cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			fmt.Fprintln(streams.Out, version)
		},
	}
}

// targetFlags are the flags that choose Pods and a container.
type targetFlags struct {
	selector  string
	container string
}

// add adds -l, and -c unless containerUsage is empty.
func (t *targetFlags) add(cmd *cobra.Command, containerUsage string) {
	cmdutil.AddLabelSelectorFlagVar(cmd, &t.selector)
	if containerUsage != "" {
		cmd.Flags().StringVarP(&t.container, "container", "c", "", containerUsage)
	}
}

// validate checks that args, the TARGETs, or -l choose the Pods.
func (t *targetFlags) validate(args []string) error {
	switch {
	case len(args) > 0 && t.selector != "":
		return errors.New("name Pods and workloads, or select Pods with -l, not both")
	case len(args) == 0 && t.selector == "":
		return fmt.Errorf("name a Pod, a workload (%s, or any other that controls Pods), or select Pods with -l", strings.Join(workloadArgs(), ", "))
	}
	return nil
}

// emptyMeans are the flags whose empty value says something: the gRPC
// health check's question about the server's overall health, and the
// default output, as kubectl takes -o "".
var emptyMeans = map[string]bool{"grpc-service": true, "output": true}

// refuseEmpty refuses a flag of cmd given an empty value, as by a variable
// that is not set (--get-url=$URL, --context=$PROD): the command would take
// it as left out, and do what it does without it, or to the current
// context's cluster and namespace, not what was meant.
func refuseEmpty(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || !f.Changed || emptyMeans[f.Name] {
			return
		}
		values := []string{f.Value.String()}
		if s, ok := f.Value.(pflag.SliceValue); ok {
			values = s.GetSlice()
		}
		if slices.Contains(values, "") {
			err = cmdutil.UsageErrorf(cmd, "--%s is empty: give it a value, or leave it out", f.Name)
		}
	})
	return err
}

// options are a command's options, which it completes, validates and runs
// as kubectl's commands do.
type options interface {
	Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE returns the RunE of a command whose options are o.
func runE(f cmdutil.Factory, o options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := refuseEmpty(cmd); err != nil {
			return err
		}
		if err := o.Complete(f, cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// clients are what a command reads and changes the cluster with, made by
// the factory from the flags that choose the cluster and the user.
type clients struct {
	namespace string
	getter    genericclioptions.RESTClientGetter
	client    kubernetes.Interface
	owners    *owners
}

func (c *clients) complete(f cmdutil.Factory) error {
	var err error
	if c.namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
		return err
	}
	if c.client, err = f.KubernetesClientSet(); err != nil {
		return err
	}
	dynamicClient, err := f.DynamicClient()
	if err != nil {
		return err
	}
	mapper, err := f.ToRESTMapper()
	if err != nil {
		return err
	}
	c.owners = newOwners(dynamicClient, mapper)
	c.getter = f
	return nil
}

// contextName is the name of the kubeconfig context that a command uses;
// "" when there is none.
func contextName(f cmdutil.Factory, cmd *cobra.Command) string {
	if c, _ := cmd.Flags().GetString("context"); c != "" {
		return c
	}
	raw, err := f.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}

// The values of --wait.
const (
	waitProven  = "proven"
	waitApplied = "applied"
	waitNone    = "none"
)

// waitModes are the values of --wait, and the former boolean flag's, true
// and false, as the modes they stand for.
var waitModes = map[string]string{
	waitProven: waitProven, waitApplied: waitApplied, waitNone: waitNone,
	"true": waitProven, "false": waitNone,
}

// changeOptions are the options of a run: what set, disable, restore and
// undo share.
type changeOptions struct {
	genericiooptions.IOStreams
	PrintFlags *genericclioptions.PrintFlags
	targetFlags

	liveness, readiness, startup bool
	// maxInFlight is --max-in-flight: a number, a percentage, or "" for
	// the workload's limit.
	maxInFlight   string
	wait          string
	waitTimeout   time.Duration
	skipCheck     bool
	undoOnFailure bool
	yes           bool
	fieldManager  string
	// operation is what the command does to a Pod, as printed: "probes
	// set".
	operation string
	// probes is set for a command that changes the probes that
	// --liveness, --readiness and --startup choose.
	probes bool

	// Set by Complete.
	args  []string
	types []probeType
	clients
	config  *rest.Config
	context string
	cmdline *commandLine
	report  *reporter
}

func newChangeOptions(streams genericiooptions.IOStreams, operation string, probes bool) *changeOptions {
	return &changeOptions{
		IOStreams:   streams,
		PrintFlags:  genericclioptions.NewPrintFlags(operation),
		wait:        waitProven,
		waitTimeout: defaultWaitTimeout,
		operation:   operation,
		probes:      probes,
	}
}

// defaultWaitTimeout is how long a run waits for each Pod by default.
const defaultWaitTimeout = 5 * time.Minute

// addFlags adds the flags of set, disable and restore: the run's, and the
// container and the probes that change.
func (o *changeOptions) addFlags(cmd *cobra.Command) {
	o.targetFlags.add(cmd, "The container whose probes change. Without it: the Pod's only container that can have probes, or the one that the annotation kubectl.kubernetes.io/default-container names; unlike kubectl exec, never the first of several.")
	cmd.Flags().BoolVar(&o.liveness, "liveness", false, "Change the liveness probe.")
	cmd.Flags().BoolVar(&o.readiness, "readiness", false, "Change the readiness probe.")
	cmd.Flags().BoolVar(&o.startup, "startup", false, "Change the startup probe.")
	o.addRunFlags(cmd)
}

// addRunFlags adds the flags of a run: how it checks, changes, proves and
// prints.
func (o *changeOptions) addRunFlags(cmd *cobra.Command) {
	cmdutil.AddDryRunFlag(cmd)
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVar(&o.maxInFlight, "max-in-flight", "", "The most Pods of a workload out of readiness at once: a number, or a percentage of its replicas (25%). It lowers, never raises, the workload's limit (its maxUnavailable) and a PodDisruptionBudget's, each at least 1; 10 where none sets one, 1 where none is known; for a custom kind, it sets it.")
	cmd.Flags().StringVar(&o.wait, "wait", o.wait, "After each change, what to wait for before the next batch: proven, the kubelet applied it and each new probe passed its failure window; applied, proven until each new probe was on a Pod of its template (always, if that is not known), then applied; or none, counting the Ready Pods as last read.")
	cmd.Flags().Lookup("wait").NoOptDefVal = waitProven
	cmd.Flags().DurationVar(&o.waitTimeout, "wait-timeout", o.waitTimeout, "How long to wait for each Pod (its kubelet to apply the change, its container to run the new probes; a new probe's failure window that began is waited out), and for Pods to turn Ready when no Pod may change without taking too many out of readiness; 0 waits as long as it takes.")
	cmd.Flags().DurationVar(&o.waitTimeout, "timeout", o.waitTimeout, "How long to wait for each Pod.")
	cmdutil.CheckErr(cmd.Flags().MarkDeprecated("timeout", "use --"+renamedFlags["timeout"]+" instead"))
	cmd.Flags().BoolVar(&o.skipCheck, "skip-check", false, "Store a new liveness or readiness probe without trying it against the Pod first.")
	cmd.Flags().BoolVar(&o.undoOnFailure, "undo-on-failure", false, "When a Pod fails after its change was stored (a new probe fails), put back each probe it changed, unless someone changed them since; not an old probe that would restart the container sooner, or keep it out of readiness more, and in no way later (after a failed proof, of the same handler only).")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "Go on without asking after warnings (removing a readiness probe, or the startup probe of a container that has not started).")
	cmdutil.AddFieldManagerFlagVar(cmd, &o.fieldManager, "kubectl-probe")
}

// Complete completes the options of a run from the factory and the command
// line; args are its TARGETs.
func (o *changeOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	o.args = args
	for _, t := range []struct {
		on bool
		t  probeType
	}{{o.liveness, liveness}, {o.readiness, readiness}, {o.startup, startup}} {
		if t.on {
			o.types = append(o.types, t.t)
		}
	}
	dryRun, err := cmdutil.GetDryRunStrategy(cmd)
	if err != nil {
		return err
	}
	if o.report, err = newReporter(o.IOStreams, o.PrintFlags, dryRun, o.operation, o.yes); err != nil {
		return err
	}
	if err := o.clients.complete(f); err != nil {
		return err
	}
	if o.config, err = f.ToRESTConfig(); err != nil {
		return err
	}
	o.context = contextName(f, cmd)
	o.cmdline = newCommandLine(cmd.InheritedFlags(), cmd.LocalFlags(), args, o.selector, o.namespace, o.context, kubeconfigFiles(f.ToRawKubeConfigLoader()), runtime.GOOS)
	return nil
}

// kubeconfigFiles returns the kubeconfig files that the loader reads, as
// absolute paths: the one that --kubeconfig gives, or those of $KUBECONFIG
// that are there, or ~/.kube/config when it is there; none for a command
// that reads none, such as one in a Pod, with its service account.
func kubeconfigFiles(loader clientcmd.ClientConfig) []string {
	var files []string
	for _, file := range loader.ConfigAccess().GetLoadingPrecedence() {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
		files = append(files, file)
	}
	return files
}

// Validate checks the options of a run.
func (o *changeOptions) Validate() error {
	if err := o.targetFlags.validate(o.args); err != nil {
		return err
	}
	if o.probes && len(o.types) == 0 {
		return errors.New("choose the probes with --liveness, --readiness or --startup")
	}
	if _, err := chooseMaxInFlight(o.maxInFlight, 1, nil); err != nil {
		return err
	}
	mode, ok := waitModes[o.wait]
	if !ok {
		return fmt.Errorf("--wait=%s: give proven, applied or none", o.wait)
	}
	if mode == waitNone && o.undoOnFailure {
		return fmt.Errorf("--undo-on-failure puts back a change that fails its proof: not with --wait=%s, which proves none", o.wait)
	}
	if o.waitTimeout < 0 {
		return fmt.Errorf("--wait-timeout=%s: give a duration, or 0 to wait as long as it takes", o.waitTimeout)
	}
	return nil
}

// run makes the change to the Pods that the TARGETs or -l name.
func (o *changeOptions) run(ctx context.Context, ch change) error {
	t, err := resolveTargets(ctx, o.getter, o.client, o.owners, o.namespace, o.args, o.selector)
	if err != nil {
		return err
	}
	began := time.Now()
	r := o.newRunner()
	if u, ok := ch.(undoRun); ok {
		run, others, err := selectRun(t, u.run)
		if err != nil {
			return err
		}
		r.report.undoing(run, len(t.pods), others)
		u.run, u.undoneBy, o.cmdline.undoing = run, newRunID(began), run
		r.change, r.templates = u, newTemplates(o.client)
	} else {
		o.cmdline.run = newRunID(began)
		r.change = recorded{change: ch, run: o.cmdline.run, time: began}
	}
	r.report.target(o.context, o.namespace, t)
	largest, budgets, err := o.limit(ctx, t)
	if err != nil {
		return err
	}
	r.largest, r.floors = largest, append(t.workloadFloors(), budgets...)
	if len(t.pods) > 1 {
		r.report.batches(r.largest, r.maxBatch, t.workloadFloors())
	}
	if _, ok := ch.(restoreChange); ok {
		r.templates = newTemplates(o.client)
	}
	r.census = func(ctx context.Context, budgets []floor) ([]*v1.Pod, []floor, int, error) {
		return t.current(ctx, o.client, o.owners, o.maxInFlight, budgets)
	}
	if len(budgets) > 0 {
		r.budgets = func(ctx context.Context) ([]floor, error) {
			return disruptionFloors(ctx, o.client, o.namespace, t.pods)
		}
	}
	err = r.run(ctx, t)
	if r.dryRun == "" && r.changed() {
		// Said after an interrupt too: a few requests more, within
		// afterRunTimeout.
		after, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterRunTimeout)
		defer cancel()
		for _, w := range r.afterRun(after, began) {
			r.report.workload(w, o.cmdline, err == nil)
		}
	}
	return err
}

// newRunner returns the runner of the options' change, of the Pods that
// it is given: how it checks, changes and waits on each Pod, as the flags
// say; but not the change, nor the workloads and their limits.
func (o *changeOptions) newRunner() *runner {
	r := &runner{
		patcher:       &patcher{client: o.client, fieldManager: o.fieldManager},
		container:     o.container,
		dryRun:        o.report.dryRun,
		undoOnFailure: o.undoOnFailure,
		waitTimeout:   o.waitTimeout,
		maxBatch:      maxBatch,
		nodes:         newNodeReadiness(o.client, o.report.nodesUnread),
		wait:          waitModes[o.wait],
		owners:        o.owners,
		cmdline:       o.cmdline,
		report:        o.report,
	}
	if !o.skipCheck {
		r.prober = &clientProber{client: o.client, config: o.config, access: newAccess(o.client)}
	}
	if r.wait != waitNone && r.dryRun == "" {
		p := &prover{client: o.client, timeout: o.waitTimeout, margin: proofMargin}
		r.prove = p.prove
		if r.wait == waitApplied {
			r.applied = p.applied
		}
	}
	return r
}

// afterRunTimeout bounds the run's look at its workloads once it ended
// (runner.afterRun), an interrupt or not: a workload it cannot read in
// that time is warned of, and left out.
const afterRunTimeout = 30 * time.Second

// limit chooses the limit of each workload of t (targets.chooseLimits),
// and returns the largest of those limits, and the floors of the
// PodDisruptionBudgets that select the Pods. A workload whose limit is not
// known, and budgets that cannot be read, are warned of.
func (o *changeOptions) limit(ctx context.Context, t *targets) (int, []floor, error) {
	custom := "so its Pods change one at a time, unless --max-in-flight says how many may"
	if o.maxInFlight != "" {
		custom = "so --max-in-flight=" + o.maxInFlight + " says how many of its Pods may change at once"
	}
	for _, w := range t.floors {
		switch {
		case w.unknown != "":
			o.report.warnf("warning: %s: %s; its limit is not known, so its Pods change one at a time\n", cmp.Or(w.floor.title(), "Pods of no workload"), w.unknown)
		case w.custom:
			o.report.warnf("warning: %s: %s; its limit is not known, %s\n", w.floor.title(), customKind, custom)
		}
	}
	budgets, err := disruptionFloors(ctx, o.client, o.namespace, t.pods)
	if err != nil {
		o.report.warnf("warning: cannot read the PodDisruptionBudgets of namespace %q, so the run does not keep to theirs: %v\n", o.namespace, err)
	}
	largest, err := t.chooseLimits(o.maxInFlight, budgets)
	return largest, budgets, err
}

// newCommandLine returns what the commands that a run prints carry over
// from its command line: the TARGETs (args) or -l selector, the namespace,
// and the connection and identity flags of flags that the user set (--as,
// --cluster, --server, ...), so that they go to the same cluster as the
// same user; and, for the command that finishes a run of undo, the flags of
// its own command (local) that the user set (--force, ...), a deprecated
// one by the name of the flag that replaced it (--wait-timeout for
// --timeout), once. They name the
// kubeconfig context that the run used, given or not, and the kubeconfig
// file that it read (kubeconfigs), given or not, with --kubeconfig: a
// command pasted after either changed must not go to another cluster. When
// it read several, as $KUBECONFIG can name, which --kubeconfig cannot, the
// commands say so as the shells of goos read it (see
// commandLine.command). They never carry a secret: a --token or --password
// given is named, to give again.
func newCommandLine(flags, local *pflag.FlagSet, args []string, selector, namespace, context string, kubeconfigs []string, goos string) *commandLine {
	c := &commandLine{targets: args, connection: []string{"-n", namespace}, goos: goos}
	if selector != "" {
		c.targets = []string{"-l", selector}
	}
	flags.VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Name == "context":
			if context != "" {
				c.connection = append(c.connection, "--context", context)
			}
		case f.Name == "kubeconfig":
			switch {
			case len(kubeconfigs) == 1:
				c.connection = append(c.connection, "--kubeconfig", kubeconfigs[0])
			case len(kubeconfigs) > 1:
				c.kubeconfig = strings.Join(kubeconfigs, string(filepath.ListSeparator))
			}
		case !f.Changed || f.Name == "namespace":
		case secretFlags[f.Name]:
			c.omitted = append(c.omitted, "--"+f.Name)
		case pathFlags[f.Name] && !filepath.IsAbs(f.Value.String()):
			// kubectl reads a file that a flag names from the directory
			// that it runs in: the command names it from anywhere.
			path, err := filepath.Abs(f.Value.String())
			if err != nil {
				path = f.Value.String()
			}
			c.connection = append(c.connection, "--"+f.Name+"="+path)
		default:
			c.connection = append(c.connection, flagWords(f)...)
		}
	})
	local.VisitAll(func(f *pflag.Flag) {
		switch renamed := renamedFlags[f.Name]; {
		case !f.Changed || f.Name == "selector" || f.Name == "run":
		case renamed == "":
			c.flags = append(c.flags, flagWords(f)...)
		case !local.Changed(renamed):
			// The flag that replaced it, unless given too: then it is
			// carried as itself.
			c.flags = append(c.flags, flagWords(local.Lookup(renamed))...)
		}
	})
	return c
}

// flagWords returns the words that give the flag its value again, each
// --NAME=VALUE: a flag whose value is optional (--wait, --dry-run, a bool)
// would take a VALUE in a word of its own as an argument.
func flagWords(f *pflag.Flag) []string {
	values := []string{f.Value.String()}
	if s, ok := f.Value.(pflag.SliceValue); ok {
		values = s.GetSlice()
	}
	var words []string
	for _, v := range values {
		words = append(words, "--"+f.Name+"="+v)
	}
	return words
}

// secretFlags are the flags whose values the printed commands leave out;
// pathFlags those that name a file or directory, which they name by its
// absolute path; renamedFlags the deprecated flags of a run, each with the
// flag that replaced it and shares its value, which they give instead.
var (
	secretFlags  = map[string]bool{"token": true, "password": true}
	pathFlags    = map[string]bool{"certificate-authority": true, "client-certificate": true, "client-key": true, "cache-dir": true}
	renamedFlags = map[string]string{"timeout": "wait-timeout"}
)

// proofMargin is added to a new probe's failure window (see prover): the
// time for the kubelet to publish the container's state and the probe's
// events, and for them to reach kubectl probe.
const proofMargin = 5 * time.Second

// disableOptions are the options of kubectl probe disable.
type disableOptions struct {
	*changeOptions
}

// Run disables the probes.
func (o *disableOptions) Run(ctx context.Context) error {
	return o.run(ctx, disableChange{types: o.types})
}

func newCmdDisable(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &disableOptions{newChangeOptions(streams, "probes disabled", true)}
	cmd := &cobra.Command{
		Use:   "disable (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER]",
		Short: "Remove probes of running Pods and keep them for restore",
		Long: `Remove probes of running Pods and keep a copy of each on the Pod, in the
annotation ` + keptAnnotation + `, in the same request.
kubectl probe restore puts them back. It never replaces a copy kept already.

Removing a readiness probe makes the container count as Ready, so its Pod
joins its Services' endpoints; removing the startup probe of a container
that has not started starts its liveness probe at once, which the wait
then proves as a new one. The command warns of both, and goes on only with
--yes or when you confirm on a terminal.`,
		Example: `  # Stop the liveness restarts of the Pod api while you inspect it
  kubectl probe disable api --liveness`,
		ValidArgsFunction: targetCompletion(f),
		RunE:              runE(f, o),
	}
	o.addFlags(cmd)
	return cmd
}

// restoreOptions are the options of kubectl probe restore.
type restoreOptions struct {
	*changeOptions
	force, fromTemplate bool
}

// Run puts the probes back.
func (o *restoreOptions) Run(ctx context.Context) error {
	return o.run(ctx, restoreChange{types: o.types, force: o.force, fromTemplate: o.fromTemplate})
}

func newCmdRestore(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &restoreOptions{changeOptions: newChangeOptions(streams, "probes restored", true)}
	cmd := &cobra.Command{
		Use:   "restore (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER] [--from-template] [--force]",
		Short: "Put back probes that kubectl probe disable kept, or the template's",
		Long: `Put back the probes that kubectl probe disable removed, and drop them from
the annotation ` + keptAnnotation + `, in the same request; with
--from-template, put back the probes of the template the Pod was created from
(its ReplicaSet's, or its StatefulSet's or DaemonSet's revision, or its Job's).

Anyone who may patch a Pod may write the annotation, so restore checks what
it puts back, shows it, and refuses, unless --force:
  - a kept probe that differs from the template the Pod was created from;
  - a kept exec probe of a Pod without such a template;
  - a probe set after disable removed the kept one.
A Pod with nothing kept whose probes are the template's, such as one that a
rollout created after disable, is unchanged.`,
		Example: `  # Put the liveness probe of the Pod api back
  kubectl probe restore api --liveness

  # Put the template's probes back on every Pod of a Deployment, also after a rollout
  kubectl probe restore deployment/web --liveness --readiness --from-template`,
		ValidArgsFunction: targetCompletion(f),
		RunE:              runE(f, o),
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&o.force, "force", false, "Put back a kept probe that restore would refuse: one that differs from the template, an exec probe that no template vouches for, or one over a probe set after disable.")
	cmd.Flags().BoolVar(&o.fromTemplate, "from-template", false, "Put back the probes of the template that the Pod was created from, rather than the kept ones.")
	return cmd
}

// undoOptions are the options of kubectl probe undo.
type undoOptions struct {
	*changeOptions
	runID string
	force bool
}

// Run puts back what the run changed.
func (o *undoOptions) Run(ctx context.Context) error {
	return o.run(ctx, undoRun{run: o.runID, force: o.force})
}

func newCmdUndo(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &undoOptions{changeOptions: newChangeOptions(streams, "probes put back", false)}
	cmd := &cobra.Command{
		Use:   "undo (TARGET... | -l SELECTOR) [--run ID] [--force]",
		Short: "Put back what the last run of kubectl probe changed",
		Long: `Put back what the last run of kubectl probe set, disable or restore on the
Pods changed: each container's probes, and the probes that disable kept for
it, as they were before that run. Each run keeps what it replaced on each
Pod it changes, in the annotation ` + lastRunAnnotation + `,
in the same request as the change; when a run stops, fails or is
interrupted, it prints the undo command with its --run. An undo that stops
or is interrupted prints itself with --run: run again, it leaves alone the
Pods put back already, and puts back the others.

The last run is the latest one recorded on the Pods that TARGET names;
--run ID chooses another. A Pod whose probes someone changed since that run,
or that a later run changed again, is left as it is, and named. Undo is a
run like the others: each Pod is checked first, and each put-back probe
proven, in batches.

Anyone who may patch a Pod may write the annotation, so undo refuses, unless
--force, to put back an exec probe that is not the template's.`,
		Example: `  # Put back every Pod of the last run on a Deployment
  kubectl probe undo deployment/controller

  # Put back the Pods that a run changed, as the run printed it
  kubectl probe undo deployment/controller --run 20261204-101502-7f3a`,
		ValidArgsFunction: targetCompletion(f),
		RunE:              runE(f, o),
	}
	o.targetFlags.add(cmd, "")
	o.addRunFlags(cmd)
	cmd.Flags().StringVar(&o.runID, "run", "", "The ID of the run to undo, as the run printed it; the last run recorded on the Pods without it.")
	cmd.Flags().BoolVar(&o.force, "force", false, "Put back an exec probe that is not the template's.")
	return cmd
}
