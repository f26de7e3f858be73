// Command kubectl-probe is the kubectl plugin kubectl probe: it shows and
// changes the liveness, readiness and startup probes of running Pods
// (KEP-6318). Put it on PATH and run it as kubectl probe.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"mutableprobes/internal/probeplugin"
)

func main() {
	// The first SIGINT or SIGTERM ends ctx: a run changes no more Pods,
	// and ends the changes in flight as it says. A second one ends the
	// process at once, as without the plugin: each Pod changed keeps what
	// its change replaced, for kubectl probe undo.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	status := probeplugin.Execute(ctx, genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(status)
}
