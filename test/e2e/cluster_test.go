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
	"sync"
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

// controlPlane is a control plane that launchCluster started: the script
// that runs etcd and kube-apiserver, which writes their logs and the
// kubeconfig into dir.
type controlPlane struct {
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// launchCluster starts a control plane in tmp with MutableContainerProbes
// set to gate, with the script make run uses
// (hack/internal/loopback-control-plane.sh), and waits until it is ready.
// The caller stops it, also when the error says that it was not ready; it
// is nil when it did not start.
func launchCluster(t *testing.T, tmp string, gate bool) (*cluster, *controlPlane, error) {
	t.Helper()
	c := &cluster{bin: binDir(t)}
	p := &controlPlane{dir: filepath.Join(tmp, "control-plane"), exited: make(chan struct{})}
	apiPort, etcdPort := freePorts(t), freePorts(t)
	cmd := exec.Command(filepath.Join(root(t), "hack", "internal", "loopback-control-plane.sh"),
		p.dir, fmt.Sprint(apiPort), fmt.Sprint(etcdPort), fmt.Sprint(gate))
	// Its own process group, so that a kill reaches etcd and kube-apiserver;
	// and SIGTERM when this process dies without stopping it (Ctrl-C, which
	// the group does not get, or go test's timeout), as upstream's node e2e
	// suite gives the servers it starts (test/e2e_node/services).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stderr, err := os.Create(filepath.Join(tmp, "control-plane.log"))
	if err != nil {
		return nil, nil, err
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting the control plane: %v", err)
	}
	p.cmd = cmd
	ready := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if scanner.Text() == "ready" {
				close(ready)
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()

	select {
	case <-ready:
	case <-p.exited:
		return nil, p, fmt.Errorf("the control plane exited before it was ready\n%s", tails(tmp, "control-plane"))
	case <-time.After(3 * time.Minute):
		return nil, p, fmt.Errorf("the control plane was not ready within 3 minutes\n%s", tails(tmp, "control-plane"))
	}
	c.kubeconfig = filepath.Join(p.dir, "kubeconfig")
	restConfig, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, p, err
	}
	c.client = kubernetes.NewForConfigOrDie(restConfig)
	return c, p, nil
}

// stop stops the control plane: gracefully first, killed if that takes too
// long.
func (p *controlPlane) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(45 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// logTails logs the last lines of etcd's and kube-apiserver's logs, for a
// test that failed.
func (p *controlPlane) logTails(t *testing.T) {
	if s := tails(p.dir, "etcd", "kube-apiserver"); s != "" {
		t.Log(s)
	}
}

// startCluster starts a control plane of the test's own (launchCluster)
// with MutableContainerProbes set to gate, and stops it when the test ends.
// It stops the shared one first (sharedCluster), so that no two run at
// once.
func startCluster(t *testing.T, gate bool) *cluster {
	t.Helper()
	shared.stop()
	c, p, err := launchCluster(t, t.TempDir(), gate)
	if p != nil {
		t.Cleanup(func() {
			p.stop()
			if t.Failed() {
				p.logTails(t)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// shared is the control plane, with MutableContainerProbes on, that the
// plugin's tests share (sharedCluster): each works in namespaces of its
// own, and one start for them all keeps the suite's time. TestMain stops
// it.
var shared sharedControlPlane

type sharedControlPlane struct {
	mu  sync.Mutex
	c   *cluster
	p   *controlPlane
	tmp string
	// err is why it did not get ready: the tests after the first one fail
	// at once, without waiting minutes each.
	err error
	// tests are the names of the tests that it served.
	tests map[string]bool
}

// sharedCluster returns the shared control plane, which it starts the first
// time. A test that it served already, run again (go test -count), gets a
// new one: its namespaces and Nodes are in the old one.
func sharedCluster(t *testing.T) *cluster {
	t.Helper()
	s := &shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		t.Fatalf("the shared control plane: %v", s.err)
	}
	if s.tests[t.Name()] {
		s.stopLocked()
	}
	if s.c == nil {
		tmp, err := os.MkdirTemp("", "e2e-control-plane-")
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if s.c == nil {
				os.RemoveAll(tmp)
			}
		}()
		c, p, err := launchCluster(t, tmp, true)
		if err != nil {
			if p != nil {
				p.stop()
				p.logTails(t)
			}
			s.err = err
			t.Fatal(err)
		}
		s.c, s.p, s.tmp, s.tests = c, p, tmp, map[string]bool{}
	}
	s.tests[t.Name()] = true
	p := s.p
	t.Cleanup(func() {
		if t.Failed() {
			p.logTails(t)
		}
	})
	return s.c
}

// stop stops the shared control plane, if it runs.
func (s *sharedControlPlane) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *sharedControlPlane) stopLocked() {
	if s.p != nil {
		s.p.stop()
		os.RemoveAll(s.tmp)
	}
	s.c, s.p, s.tmp, s.tests = nil, nil, "", nil
}

// tails returns the last lines of the logs NAME.log in dir.
func tails(dir string, names ...string) string {
	var b strings.Builder
	for _, name := range names {
		out, err := os.ReadFile(filepath.Join(dir, name+".log"))
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		fmt.Fprintf(&b, "last lines of %s.log:\n%s\n", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
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
