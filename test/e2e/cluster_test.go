//go:build e2e

// Package e2e drives the binaries that the patch series builds from outside,
// the way a user does: it starts etcd and kube-apiserver as make run does,
// and changes probes with kubectl. Run it with 'make test-e2e'.
package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// root is the project's root: the go command runs the test in test/e2e.
func root(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// binDir holds kube-apiserver and kubectl, which make test-e2e builds into
// the base's directory (HARNESS_BIN; _output/bin by default), as it builds
// the base's etcd (hack/internal/loopback-control-plane.sh finds both).
func binDir(t *testing.T) string {
	dir := os.Getenv("HARNESS_BIN")
	if dir == "" {
		dir = filepath.Join(root(t), "_output", "bin")
	}
	for _, name := range []string{"kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s is missing from %s; run 'make test-e2e', which builds it", name, dir)
		}
	}
	return dir
}

// freePorts returns a free port on loopback whose successor is free too:
// etcd's client and peer ports.
func freePorts(t *testing.T) int {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		next, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+1))
		l.Close()
		if err == nil {
			next.Close()
			return port
		}
	}
	t.Fatal("found no two free adjacent ports on 127.0.0.1")
	return 0
}

// cluster is etcd and kube-apiserver on loopback, and a kubeconfig for them.
type cluster struct {
	bin        string
	kubeconfig string
	client     kubernetes.Interface
}

// startCluster starts a control plane with MutableContainerProbes set to
// gate, with the script make run uses (hack/internal/loopback-control-plane.sh), and
// stops it when the test ends: gracefully first, killed if that takes too
// long.
func startCluster(t *testing.T, gate bool) *cluster {
	t.Helper()
	c := &cluster{bin: binDir(t)}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "control-plane")
	apiPort, etcdPort := freePorts(t), freePorts(t)
	cmd := exec.Command(filepath.Join(root(t), "hack", "internal", "loopback-control-plane.sh"),
		dir, fmt.Sprint(apiPort), fmt.Sprint(etcdPort), fmt.Sprint(gate))
	// Its own process group, so that a kill reaches etcd and kube-apiserver.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := os.Create(filepath.Join(tmp, "control-plane.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	ready := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if scanner.Text() == "ready" {
				close(ready)
			}
		}
	}()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(45 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			logTails(t, dir, "etcd", "kube-apiserver")
		}
	})

	select {
	case <-ready:
	case <-exited:
		logTails(t, tmp, "control-plane")
		t.Fatal("the control plane exited before it was ready")
	case <-time.After(3 * time.Minute):
		logTails(t, tmp, "control-plane")
		t.Fatal("the control plane was not ready within 3 minutes")
	}
	c.kubeconfig = filepath.Join(dir, "kubeconfig")
	restConfig, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c.client = kubernetes.NewForConfigOrDie(restConfig)
	return c
}

// logTails logs the last lines of the logs NAME.log in dir.
func logTails(t *testing.T, dir string, names ...string) {
	for _, name := range names {
		out, err := os.ReadFile(filepath.Join(dir, name+".log"))
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Logf("last lines of %s.log:\n%s", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
}

// kubectl runs the kubectl under test against the cluster, with stdin as
// its input, and returns its output and error.
func (c *cluster) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.bin, "kubectl"), append([]string{"--kubeconfig", c.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// mustKubectl is kubectl that fails the test when the command fails.
func (c *cluster) mustKubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := c.kubectl(t, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
