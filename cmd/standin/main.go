// Command standin writes a stand-in for a Go module that the module proxy
// does not serve, from the packages of a served module of the previous
// release that the unserved one was made from: the packages are copied, their
// imports of each other rewritten to the new module's paths, and a go.mod
// written whose requirements are those of the base's go.mod that the copied
// code imports. make checkout BASE=1.38 runs it for each module of
// STAGING_UNSERVED and STANDIN_DEPENDENCIES in releases/1.38/upstream.env.
//
// Where 1.38 calls an API that the source does not have, a bridge adds it:
// the files under bridges/MODULE, the only code of a stand-in that is not
// copied. Each says what it bridges; they carry a "go:build ignore"
// constraint here, which the stand-in's copy drops.
//
//	standin -module k8s.io/ktesting -source DIR -gomod BASE/go.mod -o OUT
//
// DIR is the source module's directory in the module cache (go mod download
// -json). Each module it knows is in standins below, with what it is made of.
package main

import (
	"bytes"
	"embed"
	"flag"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// move copies the package tree at from, in the source module, to to, in the
// stand-in; an import of from or of a package below it becomes one of the
// same package below to.
type move struct {
	from, to string
	// skip lists the files and directories of the tree that are not copied,
	// relative to from.
	skip []string
}

// standin is how a module is made.
type standin struct {
	// source is the served module, at the version the proxy serves.
	source string
	// sourcePath is the module path of source, for rewriting imports.
	sourcePath string
	moves      []move
	// bridges maps an import path prefix of the source to the one of the
	// base, where the base moved to another major version of a dependency.
	bridges map[string]string
}

// standins are the modules that the v1.38.0-beta.0 base requires and the
// proxy does not serve, and the v1.37.2 code each was made from upstream.
var standins = map[string]standin{
	// The testing helpers that 1.38 moved out of the tree into a staging
	// module.
	"k8s.io/ktesting": {
		source:     "k8s.io/kubernetes@v1.37.2",
		sourcePath: "k8s.io/kubernetes",
		moves:      []move{{from: "test/utils/ktesting", to: ".", skip: []string{"examples"}}},
	},
	// The CustomResourceDefinition API types and their client, which 1.38
	// moved out of k8s.io/apiextensions-apiserver; that module now aliases
	// the types and keeps their conversions to its internal version.
	"k8s.io/apiextensions-api": {
		source:     "k8s.io/apiextensions-apiserver@v0.37.2",
		sourcePath: "k8s.io/apiextensions-apiserver",
		moves: []move{
			{from: "pkg/apis/apiextensions/v1", to: "pkg/apis/apiextensions/v1", skip: []string{"conversion.go", "zz_generated.conversion.go"}},
			{from: "pkg/apis/apiextensions/v1beta1", to: "pkg/apis/apiextensions/v1beta1", skip: []string{"conversion.go", "zz_generated.conversion.go"}},
			{from: "pkg/client", to: "pkg/client", skip: []string{"clientset_test"}},
		},
		// 1.38 moved to structured-merge-diff v7; the apply configurations
		// use the same API of it.
		bridges: map[string]string{"sigs.k8s.io/structured-merge-diff/v6": "sigs.k8s.io/structured-merge-diff/v7"},
	},
	// The iptables package that 1.38 moved out of the tree (pkg/util/iptables)
	// into sigs.k8s.io/iptables-wrappers; the module's pkg/iptables is a
	// bridge over it.
	"sigs.k8s.io/iptables-wrappers": {
		source:     "k8s.io/kubernetes@v1.37.2",
		sourcePath: "k8s.io/kubernetes",
		moves:      []move{{from: "pkg/util/iptables", to: "internal/iptables", skip: []string{"testing"}}},
	},
}

// bridges holds the bridges, below the path of the module each belongs to.
//
//go:embed bridges
var bridges embed.FS

// ignore is the build constraint that keeps a bridge out of this module's
// build.
const ignore = "//go:build ignore\n\n"

func main() {
	module := flag.String("module", "", "the module to write a stand-in for")
	source := flag.String("source", "", "the directory of the source module")
	gomod := flag.String("gomod", "", "the base's go.mod, whose requirements the stand-in takes")
	out := flag.String("o", "", "the directory to write the stand-in module into")
	list := flag.Bool("source-module", false, "print the source module (path@version) of -module and exit")
	flag.Parse()
	s, ok := standins[*module]
	if !ok {
		fail(fmt.Errorf("no stand-in for %q is known (cmd/standin)", *module))
	}
	if *list {
		fmt.Println(s.source)
		return
	}
	if *source == "" || *gomod == "" || *out == "" {
		fail(fmt.Errorf("usage: standin -module M -source DIR -gomod GOMOD -o DIR"))
	}
	if err := write(*module, s, *source, *gomod, *out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "standin:", err)
	os.Exit(1)
}

// rewrite returns the import path in the stand-in of an import of the source
// module, and whether it is one of the moved packages.
func (s standin) rewrite(module, imp string) (string, bool) {
	for _, m := range s.moves {
		from := path.Join(s.sourcePath, m.from)
		if imp == from || strings.HasPrefix(imp, from+"/") {
			return path.Join(module, m.to, strings.TrimPrefix(imp, from)), true
		}
	}
	return imp, false
}

func write(module string, s standin, source, gomod, out string) error {
	imports := map[string]bool{}
	for _, m := range s.moves {
		root := filepath.Join(source, filepath.FromSlash(m.from))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if slices.Contains(m.skip, filepath.ToSlash(rel)) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return copyFile(module, s, p, src, filepath.Join(out, filepath.FromSlash(m.to), rel), imports)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", m.from, err)
		}
	}
	if err := writeBridges(module, s, out, imports); err != nil {
		return err
	}
	return writeGoMod(module, gomod, out, imports)
}

// writeBridges writes the bridges of module, if it has any, into the
// stand-in, without their build constraint.
func writeBridges(module string, s standin, out string, imports map[string]bool) error {
	root := path.Join("bridges", module)
	if _, err := fs.Stat(bridges, root); err != nil {
		return nil
	}
	return fs.WalkDir(bridges, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(bridges, p)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(src, []byte(ignore)) {
			return fmt.Errorf("%s: a bridge starts with %q", p, ignore)
		}
		dst := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(p, root+"/")))
		if _, err := os.Stat(dst); err == nil {
			return fmt.Errorf("%s: a bridge would replace a file of the source; give it a name of its own", p)
		}
		return copyFile(module, s, p, src[len(ignore):], dst, imports)
	})
}

// copyFile writes the Go file src, read from name, to dst with its imports
// rewritten, and adds its imports of other modules to imports.
func copyFile(module string, s standin, name string, src []byte, dst string, imports map[string]bool) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return err
	}
	for _, spec := range f.Imports {
		imp, _ := strconv.Unquote(spec.Path.Value)
		for from, to := range s.bridges {
			if imp == from || strings.HasPrefix(imp, from+"/") {
				imp = to + strings.TrimPrefix(imp, from)
				spec.Path.Value = strconv.Quote(imp)
			}
		}
		if to, moved := s.rewrite(module, imp); moved {
			spec.Path.Value = strconv.Quote(to)
		} else if imp != module && !strings.HasPrefix(imp, module+"/") && strings.Contains(strings.Split(imp, "/")[0], ".") {
			imports[imp] = true
		}
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b.Bytes(), 0o644)
}

// writeGoMod writes the stand-in's go.mod: the base's go directive, and the
// base's requirement of each module that the copied code imports.
func writeGoMod(module, gomod, out string, imports map[string]bool) error {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return err
	}
	goVersion, requires := parseGoMod(data)
	needed := map[string]string{}
	for imp := range imports {
		best := ""
		for mod := range requires {
			if (imp == mod || strings.HasPrefix(imp, mod+"/")) && len(mod) > len(best) {
				best = mod
			}
		}
		if best == "" {
			return fmt.Errorf("no module that %s requires provides %s", gomod, imp)
		}
		needed[best] = requires[best]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// A stand-in written by the KEP-6318 harness (cmd/standin), not upstream's module.\n\nmodule %s\n\ngo %s\n", module, goVersion)
	if len(needed) > 0 {
		b.WriteString("\nrequire (\n")
		for _, mod := range slices.Sorted(maps.Keys(needed)) {
			fmt.Fprintf(&b, "\t%s %s\n", mod, needed[mod])
		}
		b.WriteString(")\n")
	}
	return os.WriteFile(filepath.Join(out, "go.mod"), []byte(b.String()), 0o644)
}

// parseGoMod returns the go directive of a go.mod and its requirements,
// module path to version.
func parseGoMod(data []byte) (string, map[string]string) {
	goVersion, requires, inRequire := "", map[string]string{}, false
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(strings.TrimSpace(strings.SplitN(line, "//", 2)[0]))
		switch {
		case len(fields) == 2 && fields[0] == "go":
			goVersion = fields[1]
		case len(fields) == 2 && fields[0] == "require" && fields[1] == "(":
			inRequire = true
		case len(fields) == 1 && fields[0] == ")":
			inRequire = false
		case len(fields) == 3 && fields[0] == "require":
			requires[fields[1]] = fields[2]
		case len(fields) == 2 && inRequire:
			requires[fields[0]] = fields[1]
		}
	}
	return goVersion, requires
}
