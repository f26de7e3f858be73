// Package pluginbuild builds kubectl-probe, the project's kubectl plugin,
// for the tests that run it through kubectl as a user does: the black-box
// and the node tests. Each package builds it once, into a directory of its
// own, for its tests to put on PATH, and removes it once they ran.
package pluginbuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Build is the build of kubectl-probe that a package's tests share: the
// first Dir makes it.
type Build struct {
	once sync.Once
	dir  string
	err  error
}

// Dir builds kubectl-probe from the project's root, with its completion
// script beside it, as make install-plugin installs them, the first time it
// is called, and returns the directory; it fails the test when the build
// failed.
func (b *Build) Dir(t testing.TB, root string) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "kubectl-probe-"); b.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(b.dir, "kubectl-probe"), "./cmd/kubectl-probe")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building kubectl-probe: %v\n%s", err, out)
			return
		}
		script, err := os.ReadFile(filepath.Join(root, "cmd", "kubectl-probe", "kubectl_complete-probe"))
		if err == nil {
			err = os.WriteFile(filepath.Join(b.dir, "kubectl_complete-probe"), script, 0o755)
		}
		b.err = err
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

// Remove removes what Dir built; TestMain calls it once the tests ran.
func (b *Build) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
