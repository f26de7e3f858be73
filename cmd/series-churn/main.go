// Command series-churn measures how final the commits of a patch series are:
// the lines that one commit of the series adds and a later commit deletes or
// rewrites. A series whose commits are each final, with no commit that fixes
// an earlier one, has little churn; a deliberate refactor-then-change has some.
//
//	series-churn [-max N] REPO BASE
//
// It prints each commit with churn, and the total, for the commits of REPO
// after BASE (git rev-list BASE..HEAD), and fails when the total is above N.
// A line counts when a later commit's diff deletes it and git blame, at the
// later commit's parent, says that a commit of the series added it.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	maxChurn := flag.Int("max", -1, "fail when the churn is above this many lines (-1: no limit)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: series-churn [-max N] REPO BASE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	commits, total, err := measure(flag.Arg(0), flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "series-churn:", err)
		os.Exit(1)
	}
	for _, c := range commits {
		if c.churn > 0 {
			fmt.Printf("%5d  %s\n", c.churn, c.subject)
		}
	}
	fmt.Printf("total: %d lines that one commit of the series adds and a later one deletes or rewrites (%d commits)\n", total, len(commits))
	if *maxChurn >= 0 && total > *maxChurn {
		fmt.Fprintf(os.Stderr, "series-churn: %d lines of churn, more than the budget of %d: fold the fixes into the commits they fix\n", total, *maxChurn)
		os.Exit(1)
	}
}

// commit is one commit of the series and its churn: the lines of earlier
// commits of the series that it deletes.
type commit struct {
	id, subject string
	churn       int
}

var (
	hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+`)
	blameLine  = regexp.MustCompile(`^([0-9a-f]{40}) \d+ \d+`)
)

// measure returns the commits of repo after base, each with its churn, and
// the total.
func measure(repo, base string) ([]commit, int, error) {
	out, err := git(repo, "rev-list", "--reverse", base+"..HEAD")
	if err != nil {
		return nil, 0, err
	}
	ids := strings.Fields(out)
	series := make(map[string]bool, len(ids))
	for _, id := range ids {
		series[id] = true
	}
	var commits []commit
	total := 0
	for _, id := range ids {
		subject, err := git(repo, "log", "-1", "--format=%s", id)
		if err != nil {
			return nil, 0, err
		}
		n, err := deletedSeriesLines(repo, id, series)
		if err != nil {
			return nil, 0, err
		}
		commits = append(commits, commit{id: id, subject: strings.TrimSpace(subject), churn: n})
		total += n
	}
	return commits, total, nil
}

// deletedSeriesLines counts the lines that commit id deletes and that a
// commit of series added.
func deletedSeriesLines(repo, id string, series map[string]bool) (int, error) {
	diff, err := git(repo, "diff", "-U0", "--no-renames", id+"~1", id)
	if err != nil {
		return 0, err
	}
	n := 0
	path := ""
	scanner := bufio.NewScanner(strings.NewReader(diff))
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.HasPrefix(line, "--- "):
			path = strings.TrimPrefix(line, "--- a/")
			if path == line { // --- /dev/null: a new file deletes nothing
				path = ""
			}
		case strings.HasPrefix(line, "@@ ") && path != "":
			m := hunkHeader.FindStringSubmatch(line)
			if m == nil {
				return 0, fmt.Errorf("%s: unexpected hunk header %q", id, line)
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			if count == 0 {
				continue
			}
			blame, err := git(repo, "blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", start, start+count-1), id+"~1", "--", path)
			if err != nil {
				return 0, err
			}
			for _, b := range strings.Split(blame, "\n") {
				if m := blameLine.FindStringSubmatch(b); m != nil && series[m[1]] {
					n++
				}
			}
		}
	}
	return n, scanner.Err()
}

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
