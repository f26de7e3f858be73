// Package probeplugin is kubectl probe, the kubectl plugin that shows and
// changes the liveness, readiness and startup probes of running Pods
// (KEP-6318, feature gate MutableContainerProbes) with ordinary Pod
// patches.
package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Execute runs kubectl probe with args and returns its exit status.
func Execute(ctx context.Context, streams genericiooptions.IOStreams, args []string) int {
	cmd := NewCmdProbe(streams)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
	}
	return 1
}

// errReported is returned by a command whose error has been printed.
var errReported = errors.New("reported")

// NewCmdProbe returns the kubectl probe command.
func NewCmdProbe(streams genericiooptions.IOStreams) *cobra.Command {
	// Server warnings print as kubectl prints them, each text once.
	warnings := rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{
		Deduplicate: true,
		Color:       printers.AllowsColorOutput(streams.ErrOut),
	})
	configFlags := genericclioptions.NewConfigFlags(true).WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		c.WarningHandler = warnings
		// --max-in-flight bounds the requests in flight, and the API
		// server's priority and fairness their share: no client-side
		// throttling on top, which would make 500 Pods take minutes.
		c.QPS = -1
		return c
	})
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Show and change the probes of running Pods",
		Long: `Show and change the liveness, readiness and startup probes of running Pods.

The API server must have the MutableContainerProbes feature gate on
(KEP-6318), and the kubelet of each Pod's node too. Each change is one Pod
patch, conditioned on the Pod's resourceVersion; the Pods' controllers and
their templates are not changed.

TARGET is a Pod's name, pod/NAME, or a workload (deployment/NAME,
statefulset/NAME, daemonset/NAME, replicaset/NAME, job/NAME), which stands for
the Pods it controls now; or select Pods with -l SELECTOR instead.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl probe",
		},
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	configFlags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(
		newCmdShow(configFlags, streams),
		newCmdSet(configFlags, streams),
		newCmdDisable(configFlags, streams),
		newCmdRestore(configFlags, streams),
	)
	return cmd
}

// targetFlags are the flags that choose Pods and a container.
type targetFlags struct {
	selector  string
	container string
}

func (f *targetFlags) add(cmd *cobra.Command, containerUsage string) {
	cmd.Flags().StringVarP(&f.selector, "selector", "l", "", "Select Pods by label selector instead of naming TARGETs.")
	cmd.Flags().StringVarP(&f.container, "container", "c", "", containerUsage)
}

// clients returns a client and the namespace to work in.
func clients(configFlags *genericclioptions.ConfigFlags) (kubernetes.Interface, string, error) {
	namespace, _, err := configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", err
	}
	config, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, "", err
	}
	client, err := kubernetes.NewForConfig(config)
	return client, namespace, err
}

// changeOptions are what set, disable and restore share.
type changeOptions struct {
	configFlags *genericclioptions.ConfigFlags
	printFlags  *genericclioptions.PrintFlags
	genericiooptions.IOStreams
	targetFlags

	liveness, readiness, startup bool
	dryRun                       string
	maxInFlight                  int
	wait                         bool
	timeout                      time.Duration

	// operation is what the command did to a Pod, as printed: "probes set".
	operation string
}

func newChangeOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, operation string) *changeOptions {
	return &changeOptions{
		configFlags: configFlags,
		printFlags:  genericclioptions.NewPrintFlags(""),
		IOStreams:   streams,
		operation:   operation,
	}
}

func (o *changeOptions) addFlags(cmd *cobra.Command) {
	o.targetFlags.add(cmd, "The container whose probes change. Without it: the Pod's only container that can have probes, or the one that the annotation kubectl.kubernetes.io/default-container names.")
	cmd.Flags().BoolVar(&o.liveness, "liveness", false, "Change the liveness probe.")
	cmd.Flags().BoolVar(&o.readiness, "readiness", false, "Change the readiness probe.")
	cmd.Flags().BoolVar(&o.startup, "startup", false, "Change the startup probe.")
	cmd.Flags().StringVar(&o.dryRun, "dry-run", string(dryRunNone), `Must be "none", "server", or "client". With client, only print what would change; with server, send the changes to be validated but not stored.`)
	cmd.Flags().IntVar(&o.maxInFlight, "max-in-flight", 1, "How many Pods to change at a time.")
	cmd.Flags().BoolVar(&o.wait, "wait", true, "After changing a readiness probe, wait for the Pod to be Ready before going on with the next Pod.")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "How long --wait waits for one Pod to be Ready; 0 waits as long as it takes.")
	o.printFlags.AddFlags(cmd)
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
func (o *changeOptions) run(ctx context.Context, args []string, c change) error {
	mode := dryRun(o.dryRun)
	suffix := ""
	switch mode {
	case dryRunNone:
	case dryRunClient:
		suffix = " (dry run)"
	case dryRunServer:
		suffix = " (server dry run)"
	default:
		return fmt.Errorf(`--dry-run=%s: must be "none", "server", or "client"`, o.dryRun)
	}
	if o.maxInFlight < 1 {
		return fmt.Errorf("--max-in-flight=%d: must be at least 1", o.maxInFlight)
	}
	printChanged, err := o.printer(o.operation + suffix)
	if err != nil {
		return err
	}
	printUnchanged, err := o.printer("unchanged" + suffix)
	if err != nil {
		return err
	}
	client, namespace, err := clients(o.configFlags)
	if err != nil {
		return err
	}
	t, err := resolveTargets(ctx, o.configFlags, client, namespace, args, o.selector)
	if err != nil {
		return err
	}
	r := &rollout{
		patcher:        &patcher{client: client, change: c, container: o.container, dryRun: mode},
		maxInFlight:    o.maxInFlight,
		wait:           o.wait && o.readiness && mode == dryRunNone,
		timeout:        o.timeout,
		printChanged:   printChanged,
		printUnchanged: printUnchanged,
		out:            o.Out,
		errOut:         o.ErrOut,
	}
	changedPods, err := r.run(ctx, t.pods)
	if changedPods > 0 {
		for _, w := range t.workloads {
			fmt.Fprintf(o.ErrOut, "%s: its Pod template is unchanged; Pods that replace these get the template's probes\n", w)
		}
	}
	return err
}

// printer returns the printer of -o, which names the operation when it
// prints names.
func (o *changeOptions) printer(operation string) (printers.ResourcePrinter, error) {
	o.printFlags.NamePrintFlags.Operation = operation
	p, err := o.printFlags.ToPrinter()
	if err != nil {
		return nil, err
	}
	// A type setter of its own: PrintFlags' one wraps only its last printer.
	return printers.NewTypeSetter(scheme.Scheme).ToPrinter(p), nil
}

func newCmdSet(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(configFlags, streams, "probes set")
	var (
		getURL, openTCP                                                  string
		grpcPort                                                         int32
		remove                                                           bool
		initialDelay, timeoutSeconds, period, successThreshold, failures int32
	)
	cmd := &cobra.Command{
		Use:   "set (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER] [--get-url=URL | --open-tcp=PORT | --grpc-port=PORT | -- COMMAND [ARG...]] [--initial-delay-seconds=N] [--timeout-seconds=N] [--period-seconds=N] [--success-threshold=N] [--failure-threshold=N] | --remove",
		Short: "Change, add or remove probes of running Pods",
		Long: `Change, add or remove probes of running Pods.

Only the fields given change; the others keep their values. A probe that is
absent is added, and then needs a handler: --get-url, --open-tcp, --grpc-port
or a command after --. A new handler replaces the probe's old one. --remove
removes the probes.

Several Pods change one at a time (--max-in-flight), and after a readiness
change each Pod must be Ready again before the next one changes (--wait).
The command stops at the first Pod that fails, and leaves the Pods after it
as they are.`,
		Example: `  # Relax the liveness probe of the Pod api
  kubectl probe set api --liveness --timeout-seconds=10 --failure-threshold=6

  # Move the readiness probe of every Pod of a Deployment to /readyz, one Pod at a time
  kubectl probe set deployment/controller --readiness --get-url=http://:8080/readyz

  # Give the sidecar "proxy" a startup probe that runs a command
  kubectl probe set pod/web -c proxy --startup --failure-threshold=30 -- cat /tmp/started

  # Remove the liveness probe of the Pods labelled app=api, 50 at a time
  kubectl probe set -l app=api --liveness --remove --max-in-flight=50`,
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
			given := false
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
				return o.run(cmd.Context(), args, removeChange{types: types})
			}
			if !given && s.handler == nil {
				return errors.New("nothing to change: give a handler (--get-url, --open-tcp, --grpc-port or -- COMMAND), a field such as --timeout-seconds, or --remove")
			}
			return o.run(cmd.Context(), args, setChange{types: types, settings: s})
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&getURL, "get-url", "", "Probe with an HTTP GET of this URL: scheme://[host]:port[/path], such as http://:8080/healthz; port is a number or a container port's name, and without host the Pod's IP is asked.")
	cmd.Flags().StringVar(&openTCP, "open-tcp", "", "Probe by opening a TCP connection to this port of the Pod: a number or a container port's name.")
	cmd.Flags().Int32Var(&grpcPort, "grpc-port", 0, "Probe with the gRPC health check on this port of the Pod.")
	cmd.Flags().BoolVar(&remove, "remove", false, "Remove the probes.")
	cmd.Flags().Int32Var(&initialDelay, "initial-delay-seconds", 0, "Seconds after the container starts before the first probe.")
	cmd.Flags().Int32Var(&timeoutSeconds, "timeout-seconds", 0, "Seconds after which a probe attempt fails.")
	cmd.Flags().Int32Var(&period, "period-seconds", 0, "Seconds between probe attempts.")
	cmd.Flags().Int32Var(&successThreshold, "success-threshold", 0, "Successes in a row for the probe to succeed (1 for liveness and startup).")
	cmd.Flags().Int32Var(&failures, "failure-threshold", 0, "Failures in a row for the probe to fail.")
	return cmd
}

func newCmdDisable(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(configFlags, streams, "probes disabled")
	cmd := &cobra.Command{
		Use:   "disable (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER]",
		Short: "Remove probes of running Pods and keep them for restore",
		Long: `Remove probes of running Pods and keep a copy of each on the Pod, in the
annotation ` + keptAnnotation + `, in the same request.
kubectl probe restore puts them back.`,
		Example: `  # Stop the liveness restarts of the Pod api while you inspect it
  kubectl probe disable api --liveness`,
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := o.types()
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), args, disableChange{types: types})
		},
	}
	o.addFlags(cmd)
	return cmd
}

func newCmdRestore(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := newChangeOptions(configFlags, streams, "probes restored")
	var force bool
	cmd := &cobra.Command{
		Use:   "restore (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER] [--force]",
		Short: "Put back probes that kubectl probe disable kept",
		Long: `Put back the probes that kubectl probe disable removed, and drop them from
the annotation ` + keptAnnotation + `, in the same request.

It refuses when no probe was kept, and when the container has that probe
again, set after disable removed it, unless --force.`,
		Example: `  # Put the liveness probe of the Pod api back
  kubectl probe restore api --liveness`,
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := o.types()
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), args, restoreChange{types: types, force: force})
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "Replace a probe that was set after disable removed it with the kept one.")
	return cmd
}
