// Command series prints what a patch series changes in the upstream tree.
//
//	series files PATCH...           the files the patches change
//	series packages ROOT PATCH...   the Go packages they change that exist in ROOT
package main

import (
	"fmt"
	"os"

	"mutableprobes/internal/series"
)

const usage = "usage: series files PATCH... | series packages ROOT PATCH..."

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "series:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf(usage)
	}
	var out []string
	switch args[0] {
	case "files":
		files, err := series.Files(args[1:])
		if err != nil {
			return err
		}
		out = files
	case "packages":
		if len(args) < 2 {
			return fmt.Errorf(usage)
		}
		files, err := series.Files(args[2:])
		if err != nil {
			return err
		}
		if out, err = series.Packages(args[1], files); err != nil {
			return err
		}
	default:
		return fmt.Errorf(usage)
	}
	for _, l := range out {
		fmt.Println(l)
	}
	return nil
}
