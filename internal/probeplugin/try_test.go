package probeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/utils/ptr"
)

// apiServer stands in for the API server's Pod proxy and access reviews:
// it answers GET /api/v1/namespaces/ns/pods/NAME:PORT/proxy/PATH with
// proxy, and says whether the user may use the proxy.
type apiServer struct {
	mu       sync.Mutex
	requests []string
	headers  http.Header
	// host is the Host of the last request to the Pod proxy, which it
	// passes on to the Pod.
	host    string
	reviews int
	allowed bool
	proxy   func(w http.ResponseWriter, pod, path string)
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" {
		s.reviews++
		var review authorizationv1.SelfSubjectAccessReview
		_ = json.NewDecoder(r.Body).Decode(&review)
		review.Status.Allowed = s.allowed
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
		return
	}
	s.requests = append(s.requests, r.URL.RequestURI())
	s.headers = r.Header.Clone()
	s.host = r.Host
	pod, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/ns/pods/"), "/proxy")
	s.proxy(w, pod, path)
}

// status answers as the API server itself does.
func status(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message})
}

func runningPod() *v1.Pod {
	pod := webPod()
	pod.Spec.Containers[0].Ports = []v1.ContainerPort{{Name: "http", ContainerPort: 8080}}
	pod.Status.Phase = v1.PodRunning
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	return pod
}

func TestTryHTTP(t *testing.T) {
	probe := func(path string, port intstr.IntOrString) *v1.Probe {
		return &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: path, Port: port, Scheme: v1.URISchemeHTTP,
			HTTPHeaders: []v1.HTTPHeader{{Name: "X-Probe", Value: "kubectl-probe"}}}}, TimeoutSeconds: 1}
	}
	for _, tc := range []struct {
		name    string
		pod     *v1.Pod
		probe   *v1.Probe
		allowed bool
		proxy   func(w http.ResponseWriter, pod, path string)
		// wantRequest is what the Pod proxy was asked; empty for nothing.
		wantRequest string
		want        tried
	}{{
		name:        "the app answers 200, on a named port and with a query",
		pod:         runningPod(),
		probe:       probe("/readyz?verbose=1", intstr.FromString("http")),
		allowed:     true,
		proxy:       func(w http.ResponseWriter, _, _ string) { w.WriteHeader(http.StatusOK) },
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/readyz?verbose=1",
		want:        tried{ok: true, answer: "answered 200 OK"},
	}, {
		name:        "the app answers 404",
		pod:         runningPod(),
		probe:       probe("/missing", intstr.FromInt32(8080)),
		allowed:     true,
		proxy:       func(w http.ResponseWriter, _, _ string) { http.NotFound(w, nil) },
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/missing",
		want:        tried{answer: "answered 404 Not Found"},
	}, {
		name:    "nothing listens on the port",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8081)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: dial tcp 10.88.0.5:8081: connect: connection refused")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8081/proxy/healthz",
		want:        tried{answer: "connection refused", dropped: true},
	}, {
		// A container that stops during the try, as a crash-looping one
		// does, cuts the connection that the API server's proxy made.
		name:    "the connection is closed before the answer",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: EOF")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{answer: "EOF", dropped: true},
	}, {
		name:    "the connection is reset",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: read tcp 10.0.0.1:41234->10.88.0.5:8080: read: connection reset by peer")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{answer: "connection reset by peer", dropped: true},
	}, {
		// The API server's proxy dials the Pod's IP from the control
		// plane's network, which may not reach it: the error is the
		// one a dial that gets no answer gives.
		name:    "the API server cannot reach the Pod's IP",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			_, err := (&net.Dialer{Timeout: time.Nanosecond}).Dial("tcp", "10.88.0.5:8080")
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: "+err.Error())
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{notTried: "the API server cannot reach the Pod: dial tcp 10.88.0.5:8080: i/o timeout"},
	}, {
		name:    "the API server cannot reach the node, through its network proxy",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: dial tcp 10.88.0.5:8080: connect: no route to host")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{notTried: "the API server cannot reach the Pod: dial tcp 10.88.0.5:8080: connect: no route to host"},
	}, {
		// A konnectivity network proxy's failure names no dial.
		name:    "the API server's network proxy cannot reach the node",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: tunnel closed")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{notTried: "the API server cannot reach the Pod: tunnel closed"},
	}, {
		// Connected, the container took longer than the proxy waits.
		name:    "the app does not answer once connected",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: read tcp 10.0.0.1:41234->10.88.0.5:8080: i/o timeout")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{answer: "i/o timeout"},
	}, {
		name:    "the app itself answers 503",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "database down")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{answer: "answered 503 Service Unavailable"},
	}, {
		name:    "a port the container does not name",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromString("admin")),
		allowed: true,
		want:    tried{answer: `container "app" has no port named "admin"`},
	}, {
		name:    "no permission for the Pod proxy",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: false,
		want:    tried{notTried: `you may not get pods/proxy in namespace "ns"`, forbidden: true},
	}, {
		name:    "a container that is not running",
		pod:     webPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		want:    tried{notTried: "the container is not running"},
	}, {
		name:    "a probe that names a host",
		pod:     runningPod(),
		probe:   &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Host: "10.0.0.1", Path: "/", Port: intstr.FromInt32(80)}}},
		allowed: true,
		want:    tried{notTried: "it names a host, which the Pod proxy does not reach"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &apiServer{allowed: tc.allowed, proxy: tc.proxy}
			server := httptest.NewServer(s)
			defer server.Close()
			config := &rest.Config{Host: server.URL}
			client := kubernetes.NewForConfigOrDie(config)
			p := &clientProber{client: client, config: config, access: newAccess(client)}
			got := p.try(context.Background(), tc.pod, &tc.pod.Spec.Containers[0], tc.probe)
			if got != tc.want {
				t.Errorf("try = %+v, want %+v", got, tc.want)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if tc.wantRequest == "" && len(s.requests) > 0 || tc.wantRequest != "" && (len(s.requests) != 1 || s.requests[0] != tc.wantRequest) {
				t.Errorf("the Pod proxy was asked %q, want %q", s.requests, tc.wantRequest)
			}
			if tc.wantRequest != "" && s.headers.Get("X-Probe") != "kubectl-probe" {
				t.Errorf("the probe's header was not sent: %v", s.headers)
			}
		})
	}
}

// A probe's Host header is what the Pod proxy passes on to the Pod, as the
// kubelet's probe sends it: the virtual host the probe asks.
func TestTryHTTPHostHeader(t *testing.T) {
	s := &apiServer{allowed: true, proxy: func(w http.ResponseWriter, _, _ string) { w.WriteHeader(http.StatusOK) }}
	server := httptest.NewServer(s)
	defer server.Close()
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080),
		HTTPHeaders: []v1.HTTPHeader{{Name: "host", Value: "api.internal"}, {Name: "X-Probe", Value: "kubectl-probe"}}}}, TimeoutSeconds: 1}
	if got := p.try(context.Background(), runningPod(), &runningPod().Spec.Containers[0], probe); !got.ok {
		t.Fatalf("try = %+v", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host != "api.internal" || s.headers.Get("X-Probe") != "kubectl-probe" {
		t.Errorf("the Pod proxy was asked with Host %q and headers %v, want Host api.internal and X-Probe", s.host, s.headers)
	}
}

// A probe that sends an Authorization or impersonation header is not tried
// through the Pod proxy: the API server would take the header as the
// user's, and the Pod would not get it; the proxy is not asked.
func TestTryHTTPAuthorizationHeader(t *testing.T) {
	for _, name := range []string{"authorization", "Proxy-Authorization", "Impersonate-User"} {
		t.Run(name, func(t *testing.T) {
			s := &apiServer{allowed: true, proxy: func(w http.ResponseWriter, _, _ string) { w.WriteHeader(http.StatusUnauthorized) }}
			server := httptest.NewServer(s)
			defer server.Close()
			config := &rest.Config{Host: server.URL, BearerToken: "user-token"}
			client := kubernetes.NewForConfigOrDie(config)
			p := &clientProber{client: client, config: config, access: newAccess(client)}
			probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080),
				HTTPHeaders: []v1.HTTPHeader{{Name: name, Value: "Bearer probe-token"}}}}, TimeoutSeconds: 1}
			got := p.try(context.Background(), runningPod(), &runningPod().Spec.Containers[0], probe)
			want := "it sends the header " + http.CanonicalHeaderKey(name) + ", which the API server takes as the user's and does not pass on to the Pod"
			if got.ok || got.notTried != want {
				t.Errorf("try = %+v, want not tried: %s", got, want)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.requests) != 0 {
				t.Errorf("the Pod proxy was asked: %v", s.requests)
			}
		})
	}
}

// An httpGet probe that speaks HTTP/2 without TLS is not tried through the
// Pod proxy, which speaks HTTP/1.1 to the Pod.
func TestTryHTTP2(t *testing.T) {
	s := &apiServer{allowed: true, proxy: func(w http.ResponseWriter, _, _ string) { w.WriteHeader(http.StatusBadRequest) }}
	server := httptest.NewServer(s)
	defer server.Close()
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080), Protocol: ptr.To(v1.HTTPProtocolHTTP2)}}, TimeoutSeconds: 1}
	got := p.try(context.Background(), runningPod(), &runningPod().Spec.Containers[0], probe)
	if want := "it speaks HTTP/2 without TLS (protocol HTTP2), and the Pod proxy speaks HTTP/1.1 to the Pod"; got.ok || got.notTried != want {
		t.Errorf("try = %+v, want not tried: %s", got, want)
	}
}

// The user's access to a subresource is asked once per namespace.
func TestAccessAskedOnce(t *testing.T) {
	s := &apiServer{allowed: false}
	server := httptest.NewServer(s)
	defer server.Close()
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, TimeoutSeconds: 1}
	for range 3 {
		if got := p.try(context.Background(), runningPod(), &runningPod().Spec.Containers[0], probe); !got.forbidden || got.notTried != `you may not create pods/exec in namespace "ns"` {
			t.Errorf("try = %+v", got)
		}
	}
	if s.reviews != 1 {
		t.Errorf("asked %d times, want once", s.reviews)
	}
}

// A GET through the Pod proxy that gets no answer within the probe's
// timeout is not tried: the container may be slow, or the API server may
// not reach the Pod's IP, whose dial it is still waiting for; the proof
// after the change judges. (The context's deadline stands for the
// timeout.)
func TestTryHTTPNoAnswer(t *testing.T) {
	release := make(chan struct{})
	s := &apiServer{allowed: true, proxy: func(http.ResponseWriter, string, string) { <-release }}
	server := httptest.NewServer(s)
	defer server.Close()
	defer close(release)
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 1}
	got := p.try(ctx, runningPod(), &runningPod().Spec.Containers[0], probe)
	want := tried{notTried: "no answer through the API server's Pod proxy within 2s (timeoutSeconds, and 1s for the way through the API server): the container did not answer in time, or the API server cannot reach the Pod"}
	if got != want {
		t.Errorf("try = %+v, want %+v", got, want)
	}
}

// A try that failed without an answer of the container is dropped: the
// connection refused, reset or closed before the answer, through the
// API server's Pod proxy or a port-forward, a gRPC connection lost, a
// command killed; the pre-check then asks whether the container stopped
// meanwhile. Any other failure is the container's answer, or the way to it
// failing.
func TestDroppedTries(t *testing.T) {
	for name, tc := range map[string]struct {
		got, want tried
	}{
		"port-forward, nothing listens": {
			got:  connectionFailed(`failed to connect to localhost:8080 inside namespace "4f1c", IPv4: dial tcp4 127.0.0.1:8080: connect: connection refused IPv6 dial tcp6: address localhost: no suitable address found `),
			want: tried{answer: "connection refused", dropped: true},
		},
		"port-forward, reset": {
			got:  connectionFailed("read tcp4 127.0.0.1:40112->127.0.0.1:8080: read: connection reset by peer"),
			want: tried{answer: "connection reset by peer", dropped: true},
		},
		"closed before the answer": {
			got:  connectionFailed("unexpected EOF"),
			want: tried{answer: "unexpected EOF", dropped: true},
		},
		"no answer in time": {
			got:  connectionFailed("read tcp 10.0.0.1:41234->10.88.0.5:8080: i/o timeout"),
			want: tried{answer: "i/o timeout"},
		},
		"gRPC, the connection lost": {
			got:  checkFailed(grpcstatus.Error(codes.Unavailable, "error reading from server: EOF")),
			want: tried{answer: "rpc error: code = Unavailable desc = error reading from server: EOF", dropped: true},
		},
		"gRPC, an unknown service": {
			got:  checkFailed(grpcstatus.Error(codes.NotFound, "unknown service api")),
			want: tried{answer: "rpc error: code = NotFound desc = unknown service api"},
		},
		"exec, killed": {
			got:  exited(utilexec.CodeExitError{Err: errors.New("killed"), Code: 137}, ""),
			want: tried{answer: "exited with 137", dropped: true},
		},
		"exec, failed": {
			got:  exited(utilexec.CodeExitError{Err: errors.New("failed"), Code: 1}, "not ready\n"),
			want: tried{answer: "exited with 1: not ready"},
		},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, tc.got, tc.want)
		}
	}
}
