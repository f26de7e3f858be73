// Command doc-test runs a Markdown guide against a cluster, top to bottom:
// each sh block runs with bash in one working directory, each block marked
// as a file is written there, and each block without a language is compared
// with what the sh block before it printed. It stops at the first command
// that fails, goes on past an output that differs (and fails at the end),
// and prints how many blocks ran, were compared or are illustrations.
// See parse for the directives a guide uses (make test-docs).
//
//	doc-test -dir _output/docs docs/changing-probes.md
//
// The blocks see the runner's environment (KUBECONFIG, PATH). With -shell,
// the guide's sh blocks and setup scripts run through that command (for
// example one that enters the cluster's namespaces). -extract NAME prints
// the block that the guide writes to the file NAME, for the harness to use
// before the guide runs.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", ".", "the working directory of the blocks")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long one block may run")
	list := flag.Bool("list", false, "print the steps without running them")
	shell := flag.String("shell", "", "a command, split at spaces, that runs the guide's scripts (bash -e -o pipefail -c SCRIPT follows it)")
	extract := flag.String("extract", "", "print the file block NAME and exit")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: doc-test [-dir DIR] [-timeout D] [-list] GUIDE.md")
		os.Exit(2)
	}
	doc, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		var steps []step
		steps, err = parse(string(doc))
		if err == nil && *extract != "" {
			err = fmt.Errorf("the guide writes no file %q", *extract)
			for _, s := range steps {
				if s.kind == file && s.name == *extract {
					fmt.Print(s.text)
					return
				}
			}
		}
		if err == nil && *list {
			for _, s := range steps {
				fmt.Printf("%s:%d: %s\n", flag.Arg(0), s.line, s.kind)
			}
			return
		}
		if err == nil {
			r := &runner{dir: *dir, timeout: *timeout, log: os.Stdout, guide: flag.Arg(0), shell: strings.Fields(*shell)}
			err = r.runAll(steps)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "doc-test:", err)
		os.Exit(1)
	}
}

type runner struct {
	dir     string
	timeout time.Duration
	log     io.Writer
	guide   string
	shell   []string // the command that runs the guide's scripts

	last   string // the output of the last run
	counts map[string]int
}

func (r *runner) runAll(steps []step) error {
	r.counts = map[string]int{}
	var differ []string
	for _, s := range steps {
		start := time.Now()
		if err := r.do(s); err != nil {
			err = fmt.Errorf("%s:%d: %s: %w", r.guide, s.line, s.kind, err)
			if s.kind != compare {
				return err
			}
			// An output that differs changes nothing: go on, to show
			// every difference in one run.
			fmt.Fprintf(r.log, "FAIL %v\n", err)
			differ = append(differ, fmt.Sprintf("%s:%d", r.guide, s.line))
			continue
		}
		name := s.kind.String()
		if s.fails {
			name = "run (rejected as the guide shows)"
		}
		r.counts[name]++
		fmt.Fprintf(r.log, "ok   %s:%d %s (%s)\n", r.guide, s.line, name, time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(r.log, "%s: %d blocks run (%d of them rejections), %d outputs compared, %d files written, %d setup scripts, %d illustrations\n",
		r.guide, r.counts["run"]+r.counts["run (rejected as the guide shows)"], r.counts["run (rejected as the guide shows)"],
		r.counts["compare"], r.counts["file"], r.counts["setup"], r.counts["illustration"])
	if len(differ) > 0 {
		return fmt.Errorf("%d outputs differ from the guide: %s", len(differ), strings.Join(differ, " "))
	}
	return nil
}

func (r *runner) do(s step) error {
	switch s.kind {
	case file:
		return os.WriteFile(filepath.Join(r.dir, s.name), []byte(s.text), 0o644)
	case run, setup:
		out, err := r.bash(s.text)
		if s.kind == run {
			r.last = out
		}
		switch {
		case s.fails && err == nil:
			return fmt.Errorf("succeeded, but the guide shows it rejected; it printed:\n%s", out)
		case s.fails:
			if _, ok := err.(*exec.ExitError); ok {
				return nil
			}
			return err
		case err != nil:
			return fmt.Errorf("%v; it printed:\n%s", err, out)
		}
		return nil
	case compare:
		want, got := normalize(s.text, s.vary), normalize(r.last, s.vary)
		if want != got {
			return fmt.Errorf("the output differs from the guide\n--- the guide (normalized)\n%s\n--- printed (normalized)\n%s\n--- printed\n%s", want, got, r.last)
		}
	}
	return nil
}

// bash runs a script with bash through the shell command, stopping at the
// first failing command, and returns what it printed on stdout and stderr,
// interleaved as a terminal shows them.
func (r *runner) bash(script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	// The shell command may change directory (entering a mount namespace
	// does), so the script changes to the working directory itself.
	dir, err := filepath.Abs(r.dir)
	if err != nil {
		return "", err
	}
	script = fmt.Sprintf("cd %q\n%s", dir, script)
	args := append(slices.Clone(r.shell), "bash", "-e", "-o", "pipefail", "-c", script)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = r.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %s", r.timeout)
	}
	return strings.TrimRight(out.String(), "\n"), err
}
