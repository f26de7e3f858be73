// Package series reads a patch series in git format-patch form and tells
// which upstream files and Go packages it changes.
package series

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Files returns the paths, relative to the tree root, that the patches
// change: added, modified and deleted files alike. The result is sorted and
// has no duplicates.
func Files(patches []string) ([]string, error) {
	seen := map[string]bool{}
	for _, p := range patches {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		names, err := parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, n := range names {
			seen[n] = true
		}
	}
	return sortedKeys(seen), nil
}

// parse returns the file names of one patch. It reads the "---" and "+++"
// lines of each file header only, so hunk lines that happen to start with
// "---" are never taken for names.
func parse(r io.Reader) ([]string, error) {
	var names []string
	inHeader := false
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			inHeader = true
		case !inHeader:
		case strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "GIT binary patch"):
			inHeader = false
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
			name, err := headerName(line[4:])
			if err != nil {
				return nil, err
			}
			if name != "" {
				names = append(names, name)
			}
		}
	}
	return names, s.Err()
}

// headerName turns "a/pkg/x.go" or "b/pkg/x.go" into "pkg/x.go", and
// "/dev/null" into "".
func headerName(s string) (string, error) {
	s = strings.TrimRight(s, "\t")
	if s == "/dev/null" {
		return "", nil
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:], nil
	}
	return "", fmt.Errorf("unexpected file name %q in a patch header (was it exported with 'make patches'?)", s)
}

// Packages returns the Go packages, as "./dir" relative to root, whose files
// the given paths change. A change under testdata counts for the package
// that holds the testdata. Packages that no longer hold Go files in root
// (because the series deleted them) are left out.
func Packages(root string, files []string) ([]string, error) {
	dirs := map[string]bool{}
	for _, f := range files {
		elems := strings.Split(path.Dir(f), "/")
		if i := slices.Index(elems, "testdata"); i >= 0 {
			elems = elems[:i]
		} else if path.Ext(f) != ".go" {
			continue
		}
		dirs[path.Join(elems...)] = true
	}
	var pkgs []string
	for _, dir := range sortedKeys(dirs) {
		ok, err := hasGoFiles(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return nil, err
		}
		if ok {
			pkgs = append(pkgs, "./"+dir)
		}
	}
	return pkgs, nil
}

func hasGoFiles(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return true, nil
		}
	}
	return false, nil
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
