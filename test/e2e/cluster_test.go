//go:build e2e

// Package e2e drives the binaries that the patch series builds from outside,
// the way a user does: it starts etcd and kube-apiserver, and changes probes
// with kubectl. Run it with 'make test-e2e'.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// binDir holds etcd, kube-apiserver and kubectl; make test-e2e sets KEP_BIN.
func binDir(t *testing.T) string {
	dir := os.Getenv("KEP_BIN")
	if dir == "" {
		dir = filepath.Join("..", "..", "_output", "bin")
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s is missing from %s; run 'make test-e2e', which builds it", name, dir)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cluster is etcd and kube-apiserver on loopback, and a kubeconfig for them.
type cluster struct {
	bin        string
	kubeconfig string
	client     kubernetes.Interface
}

// startCluster starts a control plane with MutableContainerProbes set to
// gate. Everything is stopped when the test ends.
func startCluster(t *testing.T, gate bool) *cluster {
	t.Helper()
	bin := binDir(t)
	dir := t.TempDir()

	etcdPort, peerPort, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	start(t, dir, "etcd", filepath.Join(bin, "etcd"),
		"--name", "e2e", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "e2e="+peerURL)

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	writeFile(t, filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	token := hex.EncodeToString(secret)
	writeFile(t, filepath.Join(dir, "tokens.csv"), []byte(token+",admin,admin,system:masters\n"))

	start(t, dir, "kube-apiserver", filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", fmt.Sprint(apiPort),
		"--cert-dir", filepath.Join(dir, "certs"), "--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "RBAC", "--service-cluster-ip-range", "10.0.0.0/24", "--endpoint-reconciler-type", "none",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		fmt.Sprintf("--feature-gates=MutableContainerProbes=%v", gate))

	config := clientcmdapi.NewConfig()
	config.Clusters["e2e"] = &clientcmdapi.Cluster{Server: fmt.Sprintf("https://127.0.0.1:%d", apiPort), InsecureSkipTLSVerify: true}
	config.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "admin"}
	config.CurrentContext = "e2e"
	c := &cluster{bin: bin, kubeconfig: filepath.Join(dir, "kubeconfig")}
	if err := clientcmd.WriteToFile(*config, c.kubeconfig); err != nil {
		t.Fatal(err)
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c.client = kubernetes.NewForConfigOrDie(restConfig)

	// Wait for the API server to serve, as a user's first command would.
	ctx := context.Background()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("kube-apiserver did not become ready; see its log in %s", dir)
	}
	return c
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// start runs a component with its output in DIR/NAME.log, and stops it when
// the test ends: gracefully first, killed if that takes too long.
func start(t *testing.T, dir, name, path string, args ...string) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			if out, err := os.ReadFile(logFile.Name()); err == nil {
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				t.Logf("last lines of %s.log:\n%s", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
			}
		}
	})
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
