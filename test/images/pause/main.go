// Command pause is the sandbox (pause) image of the project's single-node
// cluster: it holds a Pod's namespaces and exits on SIGINT or SIGTERM.
// Building it here means the node needs no image registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
}
