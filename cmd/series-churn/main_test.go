package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository whose first commit, tagged base, holds base.go,
// and then one commit per content of series.go in commits.
func repo(t *testing.T, commits ...string) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("base.go", "a\nb\nc\n")
	write("series.go", "upstream\n")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	run("tag", "base")
	for i, c := range commits {
		write("series.go", c)
		run("add", ".")
		run("commit", "-q", "-m", "commit "+string(rune('1'+i)))
	}
	return dir
}

func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		commits []string
		want    []int
	}{{
		name:    "commits that only add",
		commits: []string{"upstream\none\n", "upstream\none\ntwo\n"},
		want:    []int{0, 0},
	}, {
		name: "a later commit rewrites lines an earlier one added",
		// Commit 2 rewrites one and two; the upstream line it also rewrites does not count.
		commits: []string{"upstream\none\ntwo\n", "UPSTREAM\nONE\nTWO\n"},
		want:    []int{0, 2},
	}, {
		name:    "a later commit deletes what an earlier one added",
		commits: []string{"upstream\none\ntwo\nthree\n", "upstream\nthree\n", "upstream\nthree\nfour\n"},
		want:    []int{0, 2, 0},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			commits, total, err := measure(repo(t, tc.commits...), "base")
			if err != nil {
				t.Fatal(err)
			}
			if len(commits) != len(tc.want) {
				t.Fatalf("%d commits, want %d", len(commits), len(tc.want))
			}
			sum := 0
			for i, c := range commits {
				if c.churn != tc.want[i] {
					t.Errorf("commit %d (%s): churn %d, want %d", i+1, c.subject, c.churn, tc.want[i])
				}
				sum += tc.want[i]
			}
			if total != sum {
				t.Errorf("total %d, want %d", total, sum)
			}
		})
	}
}
