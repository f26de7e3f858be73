// Command doc-check checks what the project's Markdown files point at (make
// verify): every relative link names a file or directory of the repository,
// every #anchor a heading of its file, every "make TARGET" a target of the
// Makefile, every hack/, cmd/, test/ or docs/ path (a glob) something that
// exists in the repository or in the Kubernetes tree, and every KEP_
// setting one that the Makefile lists (make help) or the harness reads.
//
//	doc-check -root . -tree _output/kubernetes README.md KEP.md docs/*.md
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	fence    = regexp.MustCompile("(?ms)^ *```.*?^ *```")
	makeRef  = regexp.MustCompile("`make ([a-z0-9-]+)")
	pathRef  = regexp.MustCompile("(?:^|[^/\\w.])((?:hack|cmd|test|docs)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])")
	setting  = regexp.MustCompile(`\bKEP_[A-Z0-9_]+[A-Z0-9]`)
	target   = regexp.MustCompile(`(?m)^([a-z0-9-]+):.*## `)
	settings = regexp.MustCompile(`(?m)^#[:-] (\S+) `)
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is the anchor GitHub gives a heading.
func slug(h string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(h), ""), " ", "-")
}

// anchors lists the anchors of a Markdown document's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(doc, ""), -1) {
		s := slug(m[1])
		for n := 1; out[s]; n++ {
			s = fmt.Sprintf("%s-%d", slug(m[1]), n)
		}
		out[s] = true
	}
	return out
}

type checker struct {
	root, tree string
	// absent lists paths that the documents name as missing on purpose.
	absent   map[string]bool
	targets  map[string]bool
	settings map[string]bool
}

func newChecker(root, tree string) (*checker, error) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	c := &checker{root: root, tree: tree, absent: map[string]bool{}, targets: map[string]bool{}, settings: map[string]bool{}}
	for _, m := range target.FindAllStringSubmatch(string(mk), -1) {
		c.targets[m[1]] = true
	}
	for _, m := range settings.FindAllStringSubmatch(string(mk), -1) {
		c.settings[m[1]] = true
	}
	// Settings that the harness passes on internally, such as a test's
	// input, exist too.
	scripts, _ := filepath.Glob(filepath.Join(root, "hack", "*.sh"))
	for _, script := range scripts {
		text, err := os.ReadFile(script)
		if err != nil {
			return nil, err
		}
		for _, m := range regexp.MustCompile(`\b(KEP_[A-Z0-9_]+)=`).FindAllStringSubmatch(string(text), -1) {
			c.settings[m[1]] = true
		}
	}
	return c, nil
}

// exists says whether a path or glob names something in the repository or
// in the Kubernetes tree.
func (c *checker) exists(path string) bool {
	for _, dir := range []string{c.root, c.tree} {
		if dir == "" {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dir, path)); len(m) > 0 {
			return true
		}
	}
	return false
}

// check returns what the file at path (relative to the root) names that
// does not exist.
func (c *checker) check(path string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(c.root, path))
	if err != nil {
		return nil, err
	}
	doc := string(raw)
	var bad []string
	seen := map[string]bool{}
	report := func(format string, args ...any) {
		msg := fmt.Sprintf("%s: %s", path, fmt.Sprintf(format, args...))
		if !seen[msg] {
			seen[msg] = true
			bad = append(bad, msg)
		}
	}
	for _, m := range link.FindAllStringSubmatch(doc, -1) {
		ref := m[1]
		if strings.Contains(ref, "://") || strings.HasPrefix(ref, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(ref, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), file)
			if _, err := os.Stat(filepath.Join(c.root, target)); err != nil {
				report("the link %s names no file", ref)
				continue
			}
		}
		if anchor == "" {
			continue
		}
		other, err := os.ReadFile(filepath.Join(c.root, target))
		if err != nil || !anchors(string(other))[anchor] {
			report("the link %s names no heading of %s", ref, target)
		}
	}
	for _, m := range makeRef.FindAllStringSubmatch(doc, -1) {
		if !c.targets[m[1]] {
			report("make %s is not a target of the Makefile", m[1])
		}
	}
	// Paths in the text, not the link targets checked above.
	for _, m := range pathRef.FindAllStringSubmatch(link.ReplaceAllString(doc, "]()"), -1) {
		if !c.exists(m[1]) && !c.absent[m[1]] {
			report("%s does not exist", m[1])
		}
	}
	for _, m := range setting.FindAllString(doc, -1) {
		if !c.settings[m] {
			report("the setting %s is not listed in the Makefile", m)
		}
	}
	return bad, nil
}

func main() {
	root := flag.String("root", ".", "the repository")
	tree := flag.String("tree", "", "the Kubernetes tree, whose paths the documents name too")
	absent := flag.String("absent", "", "paths, separated by spaces, that the documents name as missing on purpose")
	flag.Parse()
	c, err := newChecker(*root, *tree)
	if err != nil {
		fmt.Fprintln(os.Stderr, "doc-check:", err)
		os.Exit(2)
	}
	for _, p := range strings.Fields(*absent) {
		c.absent[p] = true
	}
	failed := false
	for _, path := range flag.Args() {
		bad, err := c.check(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "doc-check:", err)
			os.Exit(2)
		}
		for _, b := range bad {
			fmt.Fprintln(os.Stderr, b)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
