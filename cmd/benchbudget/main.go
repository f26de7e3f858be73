// Command benchbudget checks the performance budget of the series (see
// internal/benchbudget) on go test -bench output of the base and the patched
// tree, and exits 1 naming each broken budget and by how much.
//
//	benchbudget BASE PATCHED
package main

import (
	"fmt"
	"os"

	"mutableprobes/internal/benchbudget"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: benchbudget BASE PATCHED")
		os.Exit(2)
	}
	base, err := benchbudget.ParseFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchbudget:", err)
		os.Exit(2)
	}
	patched, err := benchbudget.ParseFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchbudget:", err)
		os.Exit(2)
	}
	results, err := benchbudget.Check(base, patched)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchbudget:", err)
		os.Exit(2)
	}
	broken := 0
	for _, r := range results {
		status := "ok"
		if !r.OK {
			status = "BROKEN, " + r.Over
			broken++
		}
		fmt.Printf("%-90s %-12s %s\n", r.Budget, r.Value, status)
	}
	if broken > 0 {
		fmt.Fprintf(os.Stderr, "benchbudget: %d budget(s) broken\n", broken)
		os.Exit(1)
	}
}
