package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// setOptions are the options of kubectl probe set.
type setOptions struct {
	*changeOptions

	getURL, openTCP, grpcService, probeFile                          string
	headers                                                          []string
	grpcPort                                                         int32
	remove                                                           bool
	initialDelay, timeoutSeconds, period, successThreshold, failures int32

	// Set by Complete: the probe's flags given (--get-url, ...,
	// -- COMMAND), and what they set.
	given    []string
	handlers int
	settings settings
}

// probeFlags are the flags of set that say what of a probe changes, the
// handlers first.
var probeFlags = []string{"get-url", "open-tcp", "grpc-port", "header", "grpc-service", "initial-delay-seconds", "timeout-seconds", "period-seconds", "success-threshold", "failure-threshold"}

func newCmdSet(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &setOptions{changeOptions: newChangeOptions(streams, "probes set", true)}
	cmd := &cobra.Command{
		Use:   "set (TARGET... | -l SELECTOR) (--liveness | --readiness | --startup)... [-c CONTAINER] [--get-url=URL | --open-tcp=PORT | --grpc-port=PORT | -- COMMAND [ARG...]] [--header='NAME: VALUE']... [--grpc-service=NAME] [--initial-delay-seconds=N] [--timeout-seconds=N] [--period-seconds=N] [--success-threshold=N] [--failure-threshold=N] | --probe-file=FILE | --remove",
		Short: "Change, add or remove probes of running Pods",
		Long: `Change, add or remove probes of running Pods.

Only the fields given change; the others keep their values. A probe that is
absent is added, and then needs a handler: --get-url, --open-tcp, --grpc-port
or a command after --. A new handler replaces the probe's old one, but for
what its flag cannot say: --get-url keeps an httpGet probe's headers
(--header replaces them), --open-tcp keeps a tcpSocket probe's host,
--grpc-port keeps a gRPC probe's service (--grpc-service replaces it).
--probe-file gives the whole probe instead, as YAML or JSON (- reads it from
standard input), for what the flags cannot say. --remove removes the
probes.

Before any Pod changes, each one's change passes a server dry run, and a new
liveness or readiness probe is tried against its Pod (--skip-check not to);
a Pod that fails either stops the command before the first change. A try is
not a failure when the container did not answer while it started or
stopped, as in a crash loop, nor when the probe asks what the old one asks,
stricter in no timing or threshold, and fails as it does (a relaxed
probe): the proof after the change judges
the probe by its threshold. Then the first Pod changes alone, and the
first of each other workload without others of its own, and the others in
batches that double up to the workload's maxUnavailable, or a
PodDisruptionBudget's, which the Pods that are not Ready count against (all
of the workload's Pods, for Pods named or selected too, and every Pod that
the budget selects), or to a lower --max-in-flight (1, 2, 4, 8, 10, 10,
... with 10), each once every change of the batch before it is proven: the
kubelet reports that it applied it, and each new probe passes through its
failure window (--wait=proven). A change that only relaxes liveness and
startup probes, keeping their handlers, restarts no container sooner, and
the Pods that are not Ready do not hold it back. Each batch takes first the
Pods whose change can be proven soonest: those whose container runs, then
crash-looping ones by the end of their back-off. In an incident,
--wait=applied is the fast path: the Pods made from each template (a
ReplicaSet's, a StatefulSet's or DaemonSet's revision), which one
workload's Pods do not all share mid-rollout, are proven until each new
probe was proven on one of them, and each Pod after them waited on only
until its kubelet applied the change (a Pod whose template is not known,
as of no controller, or of a kind kubectl probe does not know, is proven);
with --max-in-flight=25%, the batches are 1 Pod, then batches that double
up to a quarter of the replicas, or fewer where the workload allows
fewer. A change to a crash-looping container is proven
from its next start, once the kubelet's back-off is over, which is added to
--wait-timeout. The command stops after the batch in which a Pod fails,
leaves the Pods after it as they are, and prints the kubectl probe undo that
puts back the Pods it changed.`,
		Example: `  # Relax the liveness probe of the Pod api
  kubectl probe set api --liveness --timeout-seconds=10 --failure-threshold=6

  # Move the readiness probe of every Pod of a Deployment to /readyz, the first Pod alone
  kubectl probe set deployment/controller --readiness --get-url=http://:8080/readyz --undo-on-failure

  # Ask the readiness probe's path of the virtual host api.internal
  kubectl probe set deployment/api --readiness --get-url=http://:8080/readyz --header="Host: api.internal"

  # Give the sidecar "proxy" a startup probe that runs a command
  kubectl probe set pod/web -c proxy --startup --failure-threshold=30 -- cat /tmp/started

  # Give the liveness probe of a Deployment's Pods as a whole, from standard input
  echo '{"tcpSocket": {"port": 8080}, "periodSeconds": 20, "failureThreshold": 6}' | kubectl probe set deployment/api --liveness --probe-file=-

  # Remove the liveness probe of the Pods labelled app=api, at most 50 at a time
  # (fewer where their workload or a PodDisruptionBudget allows fewer)
  kubectl probe set -l app=api --liveness --remove --max-in-flight=50

  # In an incident: relax the liveness probe of a crash-looping Deployment's Pods,
  # the first Pod of each ReplicaSet proven, then up to a quarter of them at a time, each until its kubelet applied it
  kubectl probe set deployment/api --liveness --failure-threshold=6 --wait=applied --max-in-flight=25%`,
		ValidArgsFunction: targetCompletion(f),
		RunE:              runE(f, o),
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&o.getURL, "get-url", "", "Probe with an HTTP GET of this URL: scheme://[host]:port[/path], such as http://:8080/healthz; port is a number or a container port's name, and without host the Pod's IP is asked.")
	cmd.Flags().StringVar(&o.openTCP, "open-tcp", "", "Probe by opening a TCP connection to this port of the Pod, or of the probe's host when it has one: a number or a container port's name.")
	cmd.Flags().StringArrayVar(&o.headers, "header", nil, "A header of the httpGet probe's request, NAME: VALUE, such as \"Host: api.internal\"; repeat it for more. Given, the headers replace the probe's; without it, they are kept.")
	cmd.Flags().Int32Var(&o.grpcPort, "grpc-port", 0, "Probe with the gRPC health check on this port of the Pod.")
	cmd.Flags().StringVar(&o.grpcService, "grpc-service", "", "The service that the gRPC health check asks about; \"\" for the server's overall health. Without it, the probe's service is kept.")
	cmd.Flags().StringVar(&o.probeFile, "probe-file", "", "A file that holds the whole probe, as YAML or JSON (httpGet: {path: /healthz, port: 8080}, failureThreshold: 6, ...), which replaces the probe; - reads it from standard input. Not with the other flags of the probe.")
	cmd.Flags().BoolVar(&o.remove, "remove", false, "Remove the probes.")
	cmd.Flags().Int32Var(&o.initialDelay, "initial-delay-seconds", 0, "Seconds after the container starts before the first probe.")
	cmd.Flags().Int32Var(&o.timeoutSeconds, "timeout-seconds", 0, "Seconds after which a probe attempt fails.")
	cmd.Flags().Int32Var(&o.period, "period-seconds", 0, "Seconds between probe attempts.")
	cmd.Flags().Int32Var(&o.successThreshold, "success-threshold", 0, "Successes in a row for the probe to succeed (1 for liveness and startup).")
	cmd.Flags().Int32Var(&o.failures, "failure-threshold", 0, "Failures in a row for the probe to fail.")
	return cmd
}

// Complete reads the probe's flags, the command after --, and the probe
// file, and completes the run's options.
func (o *setOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var command []string
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		args, command = args[:dash], args[dash:]
		switch {
		case len(command) == 0:
			return cmdutil.UsageErrorf(cmd, "-- is not followed by a command: give the probe's command after it, or leave it out")
		case command[0] == "":
			// As from a variable that is not set (-- "$CMD"): no command
			// to run, and a startup probe of a started container, which
			// does not run, would be proven all the same.
			return cmdutil.UsageErrorf(cmd, "-- is followed by an empty word, not a command: give the probe's command after it, or leave it out")
		}
	}
	for _, name := range probeFlags {
		if cmd.Flags().Changed(name) {
			o.given = append(o.given, "--"+name)
		}
	}
	s := &o.settings
	if o.getURL != "" {
		action, err := parseGetURL(o.getURL)
		if err != nil {
			return err
		}
		s.handler = &v1.ProbeHandler{HTTPGet: action}
		o.handlers++
	}
	if o.openTCP != "" {
		port, err := parsePort(o.openTCP)
		if err != nil {
			return fmt.Errorf("--open-tcp=%s: %v", o.openTCP, err)
		}
		s.handler = &v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: port}}
		o.handlers++
	}
	if cmd.Flags().Changed("grpc-port") {
		if errs := validation.IsValidPortNum(int(o.grpcPort)); len(errs) > 0 {
			return fmt.Errorf("--grpc-port=%d: %s", o.grpcPort, strings.Join(errs, "; "))
		}
		s.handler = &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: o.grpcPort}}
		o.handlers++
	}
	if len(command) > 0 {
		s.handler = &v1.ProbeHandler{Exec: &v1.ExecAction{Command: command}}
		o.handlers++
		o.given = append(o.given, "-- COMMAND")
	}
	for _, h := range o.headers {
		header, err := parseHeader(h)
		if err != nil {
			return err
		}
		s.httpHeaders = append(s.httpHeaders, header)
	}
	if cmd.Flags().Changed("grpc-service") {
		s.grpcService = &o.grpcService
	}
	for _, field := range []struct {
		name  string
		value *int32
		to    **int32
	}{
		{"initial-delay-seconds", &o.initialDelay, &s.initialDelaySeconds},
		{"timeout-seconds", &o.timeoutSeconds, &s.timeoutSeconds},
		{"period-seconds", &o.period, &s.periodSeconds},
		{"success-threshold", &o.successThreshold, &s.successThreshold},
		{"failure-threshold", &o.failures, &s.failureThreshold},
	} {
		if !cmd.Flags().Changed(field.name) {
			continue
		}
		// The API server takes 0 for its default (a period of 10 s, say),
		// which is not what the flag says; but for an initial delay.
		least := int32(1)
		if field.to == &s.initialDelaySeconds {
			least = 0
		}
		if *field.value < least {
			return fmt.Errorf("--%s=%d: give at least %d", field.name, *field.value, least)
		}
		*field.to = field.value
	}
	if o.probeFile != "" {
		probe, err := readProbe(o.probeFile, o.In)
		if err != nil {
			return err
		}
		s.probe = probe
	}
	if o.remove {
		o.operation = "probes removed"
	}
	return o.changeOptions.Complete(f, cmd, args)
}

// Validate checks that the flags say one thing to do to the probes: a
// handler, fields, a whole probe that is valid for each type of probe, or
// removing them.
func (o *setOptions) Validate() error {
	if err := o.changeOptions.Validate(); err != nil {
		return err
	}
	switch {
	case o.remove && (len(o.given) > 0 || o.probeFile != ""):
		return errors.New("--remove removes the probes: give it without a handler, fields or --probe-file")
	case o.probeFile != "" && len(o.given) > 0:
		return fmt.Errorf("--probe-file gives the whole probe: give it without %s", strings.Join(o.given, ", "))
	case o.handlers > 1:
		return errors.New("give one handler: --get-url, --open-tcp, --grpc-port or -- COMMAND")
	case !o.remove && o.probeFile == "" && len(o.given) == 0:
		return errors.New("nothing to change: give a handler (--get-url, --open-tcp, --grpc-port or -- COMMAND), a field such as --timeout-seconds, a whole probe with --probe-file, or --remove")
	}
	for _, t := range o.types {
		if n := o.settings.successThreshold; n != nil && *n > 1 && t != readiness {
			return fmt.Errorf("--success-threshold=%d: must be 1 for a %s probe", *n, t)
		}
	}
	if o.settings.probe != nil {
		for _, t := range o.types {
			if err := validateProbe(o.settings.probe, t); err != nil {
				return fmt.Errorf("--probe-file=%s, as a %s probe: %s", o.probeFile, t, strings.ReplaceAll(err.Error(), "\n", "; "))
			}
		}
	}
	return nil
}

// Run sets or removes the probes.
func (o *setOptions) Run(ctx context.Context) error {
	if o.remove {
		return o.run(ctx, removeChange{types: o.types})
	}
	return o.run(ctx, setChange{types: o.types, settings: o.settings})
}
