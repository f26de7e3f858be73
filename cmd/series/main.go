// Command series prints what a patch series changes in the upstream tree.
//
//	series files DIR           the files the patches in DIR change
//	series packages DIR ROOT   the Go packages they change that exist in ROOT
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"mutableprobes/internal/series"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "series:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: series files DIR | series packages DIR ROOT")
	}
	patches, err := filepath.Glob(filepath.Join(args[1], "[0-9][0-9][0-9][0-9]-*.patch"))
	if err != nil {
		return err
	}
	sort.Strings(patches)
	files, err := series.Files(patches)
	if err != nil {
		return err
	}
	var out []string
	switch {
	case args[0] == "files" && len(args) == 2:
		out = files
	case args[0] == "packages" && len(args) == 3:
		if out, err = series.Packages(args[2], files); err != nil {
			return err
		}
	default:
		return fmt.Errorf("usage: series files DIR | series packages DIR ROOT")
	}
	for _, l := range out {
		fmt.Println(l)
	}
	return nil
}
