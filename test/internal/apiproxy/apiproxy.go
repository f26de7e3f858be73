// Package apiproxy is a reverse proxy in front of a test cluster's API
// server that records the requests going through it. The black-box and the
// node tests put it between kubectl probe and the API server, to count what
// the plugin sends and to step in before a request.
package apiproxy

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Request is a request that went through the proxy.
type Request struct {
	Method, Path, RawQuery string
}

// DryRun reports whether the request is a dry run.
func (r Request) DryRun() bool { return strings.Contains(r.RawQuery, "dryRun=All") }

// Proxy forwards requests to an API server and records them.
type Proxy struct {
	// Kubeconfig is a kubeconfig that reaches the API server through the
	// proxy.
	Kubeconfig string

	mu       sync.Mutex
	requests []Request
	before   func(r *http.Request)
}

// Start starts a proxy to the API server of kubeconfig, which
// authenticates to it as kubeconfig does, and writes a kubeconfig for it
// whose context has namespace ("" for none). The proxy stops when the test
// ends.
func Start(t testing.TB, kubeconfig, namespace string) *Proxy {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(config)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(config.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{}
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.Transport = transport
	forward.FlushInterval = -1 // watches stream
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests = append(p.requests, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery})
		before := p.before
		p.mu.Unlock()
		if before != nil {
			before(r)
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)

	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server.URL}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy", Namespace: namespace}
	kc.CurrentContext = "proxy"
	p.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	return p
}

// Before makes the proxy call f with each request before it forwards it;
// nil stops that.
func (p *Proxy) Before(f func(r *http.Request)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.before = f
}

// Requests returns the requests so far, in the order they arrived.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// Reset forgets the requests so far.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}
