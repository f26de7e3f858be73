// Command differential compares the records that the differential test wrote
// in the patched tree and in the base tree (see internal/differential).
//
//	differential [-show N] [-repro FILE] PATCHED BASE
//
// It prints corpus statistics and the first N differences, writes the indices
// of the differing pairs (comma separated) to FILE, and exits 1 when there is
// any difference.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"mutableprobes/internal/differential"
)

func main() {
	show := flag.Int("show", 5, "print at most this many differences")
	repro := flag.String("repro", "", "write the indices of the differing pairs to this file")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: differential [-show N] [-repro FILE] PATCHED BASE")
		os.Exit(2)
	}
	n, err := run(flag.Arg(0), flag.Arg(1), *show, *repro)
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(2)
	}
	if n > 0 {
		os.Exit(1)
	}
}

func run(patchedFile, baseFile string, show int, repro string) (int, error) {
	patched, err := differential.ReadFile(patchedFile)
	if err != nil {
		return 0, err
	}
	base, err := differential.ReadFile(baseFile)
	if err != nil {
		return 0, err
	}
	st, diffs, err := differential.Compare(patched, base)
	if err != nil {
		return 0, err
	}
	fmt.Println(st)
	if err := st.Check(); err != nil {
		return 0, err
	}
	byCheck := map[string]int{}
	var ix []string
	for k, d := range diffs {
		byCheck[d.Check]++
		if k < show {
			fmt.Printf("\n=== pair %d, %s differs: %s\n%s\n", d.I, d.Check, d.Desc, strings.TrimSuffix(d.Text, "\n"))
			if i := strconv.Itoa(d.I); !slices.Contains(ix, i) {
				ix = append(ix, i)
			}
		}
	}
	fmt.Printf("differences: gate off %d, gate on (metamorphic) %d, pod security %d\n",
		byCheck["gate-off"], byCheck["gate-on"], byCheck["pod-security"])
	if repro != "" {
		if err := os.WriteFile(repro, []byte(strings.Join(ix, ",")), 0o644); err != nil {
			return 0, err
		}
	}
	return len(diffs), nil
}
