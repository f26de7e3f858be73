// Package probeplugin is kubectl probe, the kubectl plugin that shows and
// changes the liveness, readiness and startup probes of running Pods
// (KEP-6318, feature gate MutableContainerProbes) with ordinary Pod
// patches.
package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	return exitStatus(err)
}

// errReported is returned by a command whose error has been printed.
var errReported = errors.New("reported")

// The exit statuses of kubectl probe, as its help says: 0 when it did what
// was asked, 1 when it failed before it changed a Pod, and:
const (
	// exitStopped is a run that stopped at a Pod that failed, after it
	// changed Pods (that one included, when its change was stored).
	exitStopped = 2
	// exitInterrupted is a run that an interrupt ended.
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

TARGET is a Pod's name, pod/NAME, or a workload (` + strings.Join(workloadArgs(), ", ") + `),
which stands for the Pods it controls now; or select Pods with -l SELECTOR
instead. Pods that are terminating or have finished are skipped.

Before it changes any Pod, a command checks every one: the API server
validates each change without storing it (a server dry run), and a new
liveness or readiness probe is tried against its Pod. After each change,
it waits until the Pod's kubelet reports that it applied it, and until each
new probe has proved itself through its failure window. The first Pod
changes alone, then batches that double up to --max-in-flight, each once
every change of the batch before it is proven. Each run keeps on each Pod
it changes what it replaced, and kubectl probe undo puts it back.

Exit status: 0 when every Pod is as asked (or was skipped, as said); 1 when
the command failed before it changed a Pod, such as a pre-check that refused
Pods; 2 when a run stopped at a Pod that failed, after it changed Pods; 3
when an interrupt (SIGINT, SIGTERM) ended a run.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl probe",
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	configFlags.AddFlags(cmd.PersistentFlags())
	f := cmdutil.NewFactory(configFlags)
	cmd.AddCommand(
		newCmdShow(f, configFlags, streams),
		newCmdSet(f, configFlags, streams),
		newCmdDisable(f, configFlags, streams),
		newCmdRestore(f, configFlags, streams),
		newCmdUndo(f, configFlags, streams),
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

// clients returns a client, the REST configuration and the namespace to
// work in.
func clients(f cmdutil.Factory) (kubernetes.Interface, *rest.Config, string, error) {
	namespace, _, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, nil, "", err
	}
	config, err := f.ToRESTConfig()
	if err != nil {
		return nil, nil, "", err
	}
	client, err := kubernetes.NewForConfig(config)
	return client, config, namespace, err
}

// changeOptions are what set, disable and restore share.
type changeOptions struct {
	factory     cmdutil.Factory
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	targetFlags

	liveness, readiness, startup bool
	// maxInFlight is --max-in-flight: a number, a percentage, or "" for
	// the workload's limit.
	maxInFlight   string
	wait          bool
	waitTimeout   time.Duration
	skipCheck     bool
	undoOnFailure bool
	yes           bool
	fieldManager  string
	output        string

	// operation is what the command did to a Pod, as printed: "probes set".
	operation string
}

func newChangeOptions(f cmdutil.Factory, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, operation string) *changeOptions {
	return &changeOptions{factory: f, configFlags: configFlags, IOStreams: streams, operation: operation}
}

// defaultMaxInFlight is the largest batch when neither --max-in-flight, the
// workload nor a PodDisruptionBudget says: with it, 20 Pods change in 5
// failure windows (1, 2, 4, 8 and 5 Pods), 50 Pods in 8.
const defaultMaxInFlight = 10

// defaultWaitTimeout is how long --wait waits for each Pod by default.
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

// addRunFlags adds the flags of a run: how it checks, changes and proves.
func (o *changeOptions) addRunFlags(cmd *cobra.Command) {
	cmdutil.AddDryRunFlag(cmd)
	cmd.Flags().StringVar(&o.maxInFlight, "max-in-flight", "", "The largest batch of Pods that change at a time, a number or a percentage of the workload's replicas (25%): the first Pod changes alone, then batches that double up to this many, each once every change of the batch before it is proven. Without it, the workload's own limit (a Deployment's, StatefulSet's or DaemonSet's maxUnavailable) or that of a PodDisruptionBudget that selects the Pods, the smallest; 10 when none says.")
	cmd.Flags().BoolVar(&o.wait, "wait", true, "After each change, wait until the Pod's kubelet reports that it applied it, and until each new probe passed (a readiness probe keeps or makes the container Ready, a liveness probe does not restart it, nor fail failureThreshold times in a row, a startup probe starts it) before changing the next Pod.")
	cmd.Flags().DurationVar(&o.waitTimeout, "wait-timeout", defaultWaitTimeout, "How long --wait waits for each Pod; 0 waits as long as it takes.")
	cmd.Flags().DurationVar(&o.waitTimeout, "timeout", defaultWaitTimeout, "How long --wait waits for each Pod.")
	cmdutil.CheckErr(cmd.Flags().MarkDeprecated("timeout", "use --wait-timeout instead"))
	cmd.Flags().BoolVar(&o.skipCheck, "skip-check", false, "Store a new liveness or readiness probe without trying it against the Pod first.")
	cmd.Flags().BoolVar(&o.undoOnFailure, "undo-on-failure", false, "When a Pod fails after its change was stored (a new probe fails), put its probes back as they were, unless someone else changed them meanwhile, or the old liveness probe would restart the container sooner than the new one.")
	cmd.Flags().BoolVarP(&o.yes, "yes", "y", false, "Go on without asking after warnings (removing a readiness probe, or the startup probe of a container that has not started).")
	cmdutil.AddFieldManagerFlagVar(cmd, &o.fieldManager, "kubectl-probe")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: name, or json or yaml for a List of the result for each Pod.")
}

// types returns the probe types that the flags choose.
func (o *changeOptions) types() ([]probeType, error) {
	var types []probeType
	for _, t := range []struct {
		on bool
		t  probeType
	}{{o.liveness, liveness}, {o.readiness, readiness}, {o.startup, startup}} {
		if t.on {
			types = append(types, t.t)
		}
	}
	if len(types) == 0 {
		return nil, errors.New("choose the probes with --liveness, --readiness or --startup")
	}
	return types, nil
}

// run makes the change to the Pods that args and the flags name.
func (o *changeOptions) run(cmd *cobra.Command, args []string, ch change) error {
	strategy, err := cmdutil.GetDryRunStrategy(cmd)
	if err != nil {
		return err
	}
	dryRun := map[cmdutil.DryRunStrategy]string{cmdutil.DryRunNone: "", cmdutil.DryRunClient: "client", cmdutil.DryRunServer: "server"}[strategy]
	if o.output != "" && o.output != "name" && o.output != "json" && o.output != "yaml" {
		return fmt.Errorf("-o %s: must be name, json or yaml", o.output)
	}
	if _, err := chooseMaxInFlight(o.maxInFlight, 1, nil); err != nil {
		return err
	}
	ctx := cmd.Context()
	client, config, namespace, err := clients(o.factory)
	if err != nil {
		return err
	}
	t, err := resolveTargets(ctx, o.configFlags, client, namespace, args, o.selector)
	if err != nil {
		return err
	}
	now := time.Now()
	id := newRunID(now)
	r := &runner{
		patcher:       &patcher{client: client, fieldManager: o.fieldManager},
		container:     o.container,
		dryRun:        dryRun,
		undoOnFailure: o.undoOnFailure,
		report: &reporter{
			in: o.In, out: o.Out, errOut: o.ErrOut,
			output: o.output, dryRun: dryRun, operation: o.operation, yes: o.yes,
		},
	}
	if u, ok := ch.(undoRun); ok {
		run, others, err := selectRun(t, u.run)
		if err != nil {
			return err
		}
		r.report.undoing(run, len(t.pods), others)
		u.run, u.undoneBy = run, id
		r.change, r.templates = u, newTemplates(client)
	} else {
		r.change = recorded{change: ch, run: id, time: now}
		r.undoCmd = newUndoCommand(cmd.InheritedFlags(), args, o.selector, namespace, id)
	}
	r.report.target(o.contextName(), namespace, t)
	largest, err := o.limit(ctx, client, namespace, t)
	if err != nil {
		return err
	}
	r.maxInFlight = largest.n
	if dryRun == "" && len(t.pods) > 1 {
		r.report.batches(largest)
	}
	if _, ok := ch.(restoreChange); ok {
		r.templates = newTemplates(client)
	}
	if !o.skipCheck {
		r.prober = &clientProber{client: client, config: config, access: newAccess(client)}
	}
	if o.wait && dryRun == "" {
		r.prove = (&prover{client: client, timeout: o.waitTimeout, margin: proofMargin}).prove
	}
	err = r.run(ctx, t)
	if dryRun == "" && r.changed() {
		r.report.templatesUnchanged(t.workloads)
	}
	return err
}

// limit returns the run's largest batch: --max-in-flight, or the smallest
// limit of the workloads and of the PodDisruptionBudgets that select the
// Pods. A budget that cannot be read is warned of, and left out.
func (o *changeOptions) limit(ctx context.Context, client kubernetes.Interface, namespace string, t *targets) (limit, error) {
	limits := t.limits
	if o.maxInFlight == "" && len(t.pods) > 1 {
		budgets, err := disruptionLimits(ctx, client, namespace, t.pods)
		if err != nil {
			fmt.Fprintf(o.ErrOut, "warning: cannot read the PodDisruptionBudgets of namespace %q, so the run does not keep to theirs: %v\n", namespace, err)
		}
		limits = append(slices.Clone(limits), budgets...)
	}
	return chooseMaxInFlight(o.maxInFlight, t.replicas, limits)
}

// contextName is the name of the kubeconfig context that the run uses;
// "" when there is none.
func (o *changeOptions) contextName() string {
	if c := o.configFlags.Context; c != nil && *c != "" {
		return *c
	}
	raw, err := o.factory.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}

// newUndoCommand returns the kubectl probe undo that puts back what run id
// changed on the Pods that args or selector name, in namespace, with the
// connection and identity flags of flags that the user set (--as,
// --cluster, --context, --kubeconfig, --server, ...), so that it goes to
// the same cluster as the same user. It never carries a secret: a --token
// or --password given is named, to give again.
func newUndoCommand(flags *pflag.FlagSet, args []string, selector, namespace, id string) *undoCommand {
	u := &undoCommand{targets: args, flags: []string{"-n", namespace}}
	if selector != "" {
		u.targets = []string{"-l", selector}
	}
	flags.VisitAll(func(f *pflag.Flag) {
		switch {
		case !f.Changed || f.Name == "namespace":
		case secretFlags[f.Name]:
			u.omitted = append(u.omitted, "--"+f.Name)
		case f.Value.Type() == "bool":
			u.flags = append(u.flags, "--"+f.Name+"="+f.Value.String())
		default:
			values := []string{f.Value.String()}
			if s, ok := f.Value.(pflag.SliceValue); ok {
				values = s.GetSlice()
			}
			for _, v := range values {
				u.flags = append(u.flags, "--"+f.Name, v)
			}
		}
	})
	u.flags = append(u.flags, "--run", id)
	return u
}

// secretFlags are the flags whose values the printed undo leaves out.
var secretFlags = map[string]bool{"token": true, "password": true}

// proofMargin is added to a new probe's failure window (see prover): the
// time for the kubelet to publish the container's state and the probe's
// events, and for them to reach kubectl probe.
const proofMargin = 5 * time.Second

func newCmdSet(f cmdutil.Factory, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(f, configFlags, streams, "probes set")
	var (
		getURL, openTCP, grpcService                                     string
		headers                                                          []string
		grpcPort                                                         int32
		remove                                                           bool
		initialDelay, timeoutSeconds, period, successThreshold, failures int32
	)
	cmd := &cobra.Command{
		Use:   "set (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER] [--get-url=URL | --open-tcp=PORT | --grpc-port=PORT | -- COMMAND [ARG...]] [--header='NAME: VALUE']... [--grpc-service=NAME] [--initial-delay-seconds=N] [--timeout-seconds=N] [--period-seconds=N] [--success-threshold=N] [--failure-threshold=N] | --remove",
		Short: "Change, add or remove probes of running Pods",
		Long: `Change, add or remove probes of running Pods.

Only the fields given change; the others keep their values. A probe that is
absent is added, and then needs a handler: --get-url, --open-tcp, --grpc-port
or a command after --. A new handler replaces the probe's old one, but for
what its flag cannot say: --get-url keeps an httpGet probe's headers
(--header replaces them), --grpc-port keeps a gRPC probe's service
(--grpc-service replaces it). --remove removes the probes.

Before any Pod changes, each one's change passes a server dry run, and a new
liveness or readiness probe is tried against its Pod (--skip-check not to);
a Pod that fails either stops the command before the first change. Then the
first Pod changes alone, and the others in batches that double up to
--max-in-flight (1, 2, 4, 8, 10, 10, ... with 10; by default, the workload's
maxUnavailable, or a PodDisruptionBudget's), each once every change of the
batch before it is proven (--wait): the kubelet reports that it applied it,
and each new probe passes through its failure window. The command stops
after the batch in which a Pod fails, leaves the Pods after it as they are,
and prints the kubectl probe undo that puts back the Pods it changed.`,
		Example: `  # Relax the liveness probe of the Pod api
  kubectl probe set api --liveness --timeout-seconds=10 --failure-threshold=6

  # Move the readiness probe of every Pod of a Deployment to /readyz, the first Pod alone
  kubectl probe set deployment/controller --readiness --get-url=http://:8080/readyz --undo-on-failure

  # Ask the readiness probe's path of the virtual host api.internal
  kubectl probe set deployment/api --readiness --get-url=http://:8080/readyz --header="Host: api.internal"

  # Give the sidecar "proxy" a startup probe that runs a command
  kubectl probe set pod/web -c proxy --startup --failure-threshold=30 -- cat /tmp/started

  # Remove the liveness probe of the Pods labelled app=api, 50 at a time
  kubectl probe set -l app=api --liveness --remove --max-in-flight=50

  # Relax the liveness probe of a StatefulSet's Pods, a quarter of them at a time
  kubectl probe set statefulset/db --liveness --failure-threshold=6 --max-in-flight=25%`,
		ValidArgsFunction: targetCompletion(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := o.types()
			if err != nil {
				return err
			}
			var command []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				args, command = args[:dash], args[dash:]
			}
			var handlers []*v1.ProbeHandler
			if getURL != "" {
				action, err := parseGetURL(getURL)
				if err != nil {
					return err
				}
				handlers = append(handlers, &v1.ProbeHandler{HTTPGet: action})
			}
			if openTCP != "" {
				port, err := parsePort(openTCP)
				if err != nil {
					return fmt.Errorf("--open-tcp=%s: %v", openTCP, err)
				}
				handlers = append(handlers, &v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: port}})
			}
			if cmd.Flags().Changed("grpc-port") {
				handlers = append(handlers, &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: grpcPort}})
			}
			if len(command) > 0 {
				handlers = append(handlers, &v1.ProbeHandler{Exec: &v1.ExecAction{Command: command}})
			}
			if len(handlers) > 1 {
				return errors.New("give one handler: --get-url, --open-tcp, --grpc-port or -- COMMAND")
			}
			s := settings{}
			if len(handlers) == 1 {
				s.handler = handlers[0]
			}
			for _, h := range headers {
				header, err := parseHeader(h)
				if err != nil {
					return err
				}
				s.httpHeaders = append(s.httpHeaders, header)
			}
			if cmd.Flags().Changed("grpc-service") {
				s.grpcService = &grpcService
			}
			given := s.httpHeaders != nil || s.grpcService != nil
			for _, f := range []struct {
				name  string
				value *int32
				to    **int32
			}{
				{"initial-delay-seconds", &initialDelay, &s.initialDelaySeconds},
				{"timeout-seconds", &timeoutSeconds, &s.timeoutSeconds},
				{"period-seconds", &period, &s.periodSeconds},
				{"success-threshold", &successThreshold, &s.successThreshold},
				{"failure-threshold", &failures, &s.failureThreshold},
			} {
				if cmd.Flags().Changed(f.name) {
					*f.to, given = f.value, true
				}
			}
			if remove {
				if given || s.handler != nil {
					return errors.New("--remove removes the probes: give it without a handler or fields")
				}
				o.operation = "probes removed"
				return o.run(cmd, args, removeChange{types: types})
			}
			if !given && s.handler == nil {
				return errors.New("nothing to change: give a handler (--get-url, --open-tcp, --grpc-port or -- COMMAND), a field such as --timeout-seconds, or --remove")
			}
			return o.run(cmd, args, setChange{types: types, settings: s})
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&getURL, "get-url", "", "Probe with an HTTP GET of this URL: scheme://[host]:port[/path], such as http://:8080/healthz; port is a number or a container port's name, and without host the Pod's IP is asked.")
	cmd.Flags().StringVar(&openTCP, "open-tcp", "", "Probe by opening a TCP connection to this port of the Pod: a number or a container port's name.")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "A header of the httpGet probe's request, NAME: VALUE, such as \"Host: api.internal\"; repeat it for more. Given, the headers replace the probe's; without it, they are kept.")
	cmd.Flags().Int32Var(&grpcPort, "grpc-port", 0, "Probe with the gRPC health check on this port of the Pod.")
	cmd.Flags().StringVar(&grpcService, "grpc-service", "", "The service that the gRPC health check asks about; \"\" for the server's overall health. Without it, the probe's service is kept.")
	cmd.Flags().BoolVar(&remove, "remove", false, "Remove the probes.")
	cmd.Flags().Int32Var(&initialDelay, "initial-delay-seconds", 0, "Seconds after the container starts before the first probe.")
	cmd.Flags().Int32Var(&timeoutSeconds, "timeout-seconds", 0, "Seconds after which a probe attempt fails.")
	cmd.Flags().Int32Var(&period, "period-seconds", 0, "Seconds between probe attempts.")
	cmd.Flags().Int32Var(&successThreshold, "success-threshold", 0, "Successes in a row for the probe to succeed (1 for liveness and startup).")
	cmd.Flags().Int32Var(&failures, "failure-threshold", 0, "Failures in a row for the probe to fail.")
	return cmd
}

func newCmdDisable(f cmdutil.Factory, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(f, configFlags, streams, "probes disabled")
	cmd := &cobra.Command{
		Use:   "disable (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER]",
		Short: "Remove probes of running Pods and keep them for restore",
		Long: `Remove probes of running Pods and keep a copy of each on the Pod, in the
annotation ` + keptAnnotation + `, in the same request.
kubectl probe restore puts them back. It never replaces a copy kept already.

Removing a readiness probe makes the container count as Ready, so its Pod
joins its Services' endpoints; removing the startup probe of a container
that has not started starts its liveness probe at once. The command warns
of both, and goes on only with --yes or when you confirm on a terminal.`,
		Example: `  # Stop the liveness restarts of the Pod api while you inspect it
  kubectl probe disable api --liveness`,
		ValidArgsFunction: targetCompletion(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := o.types()
			if err != nil {
				return err
			}
			return o.run(cmd, args, disableChange{types: types})
		},
	}
	o.addFlags(cmd)
	return cmd
}

func newCmdRestore(f cmdutil.Factory, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(f, configFlags, streams, "probes restored")
	var force, fromTemplate bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := o.types()
			if err != nil {
				return err
			}
			return o.run(cmd, args, restoreChange{types: types, force: force, fromTemplate: fromTemplate})
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "Put back a kept probe that restore would refuse: one that differs from the template, an exec probe that no template vouches for, or one over a probe set after disable.")
	cmd.Flags().BoolVar(&fromTemplate, "from-template", false, "Put back the probes of the template that the Pod was created from, rather than the kept ones.")
	return cmd
}

func newCmdUndo(f cmdutil.Factory, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(f, configFlags, streams, "probes put back")
	var (
		run   string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "undo (TARGET... | -l SELECTOR) [--run ID] [--force]",
		Short: "Put back what the last run of kubectl probe changed",
		Long: `Put back what the last run of kubectl probe set, disable or restore on the
Pods changed: each container's probes, and the probes that disable kept for
it, as they were before that run. Each run keeps what it replaced on each
Pod it changes, in the annotation ` + lastRunAnnotation + `,
in the same request as the change; when a run stops, fails or is
interrupted, it prints the undo command with its --run.

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
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, args, undoRun{run: run, force: force})
		},
	}
	o.targetFlags.add(cmd, "")
	o.addRunFlags(cmd)
	cmd.Flags().StringVar(&run, "run", "", "The ID of the run to undo, as the run printed it; the last run recorded on the Pods without it.")
	cmd.Flags().BoolVar(&force, "force", false, "Put back an exec probe that is not the template's.")
	return cmd
}
