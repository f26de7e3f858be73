// Command golangci-lint is golangci-lint with the linters that upstream's
// configuration (hack/golangci.yaml) loads as module plugins from 1.38 on,
// logcheck and kube-api-linter, compiled in, as upstream's own build of it
// (its hack/tools/golangci-lint, which the module zip of k8s.io/kubernetes
// lacks) has them. The configuration of 1.37 loads the same linters as Go
// plugins instead, which make verify builds beside it.
package main

import (
	"fmt"
	"os"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// Each registers its linter under the name the configuration gives it.
	_ "sigs.k8s.io/kube-api-linter/pkg/plugin/base"
	_ "sigs.k8s.io/kube-api-linter/pkg/registration"
	_ "sigs.k8s.io/logtools/logcheck/gclplugin"
)

func main() {
	if err := commands.Execute(commands.BuildInfo{Version: "kep-6318"}); err != nil {
		fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}
