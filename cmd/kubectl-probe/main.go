// Command kubectl-probe is the kubectl plugin kubectl probe: it shows and
// changes the liveness, readiness and startup probes of running Pods
// (KEP-6318). Put it on PATH and run it as kubectl probe.
package main

import (
	"context"
	_ "embed"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"mutableprobes/internal/probeplugin"
)

// krewManifest is the plugin's krew manifest, whose spec.version is the one
// place where the plugin's version is written.
//
//go:embed krew.yaml
var krewManifest []byte

// version returns the plugin's version: its krew manifest's spec.version.
func version() string {
	var m struct {
		Spec struct {
			Version string `json:"version"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(krewManifest, &m); err != nil || m.Spec.Version == "" {
		return "unknown"
	}
	return m.Spec.Version
}

func main() {
	// The first SIGINT or SIGTERM ends ctx: a run changes no more Pods,
	// and ends the changes in flight as it says. A second one ends the
	// process at once, as without the plugin: each Pod changed keeps what
	// its change replaced, for kubectl probe undo.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	status := probeplugin.Execute(ctx, genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, version(), os.Args[1:])
	stop()
	os.Exit(status)
}
