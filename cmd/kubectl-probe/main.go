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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	status := probeplugin.Execute(ctx, genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(status)
}
