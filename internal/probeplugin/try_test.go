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
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
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

// readyPod is runningPod, Ready: its readiness probe asks port 8080.
func readyPod() *v1.Pod {
	pod := runningPod()
	pod.Status.ContainerStatuses[0].Ready = true
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
		// A REJECT firewall between the API server and the Pods' network
		// refuses the API server's dial too: the kubelet's readiness
		// probe, which keeps the container Ready, reaches the port.
		name:    "refused, on the port that the Ready container's readiness probe asks",
		pod:     readyPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: dial tcp 10.88.0.5:8080: connect: connection refused")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{notTried: "the API server's way to the Pod refused the connection (dial tcp 10.88.0.5:8080: connect: connection refused), though the container is Ready by a readiness probe on that port, which the kubelet reaches"},
	}, {
		name:    "refused, on another port than the Ready container's readiness probe asks",
		pod:     readyPod(),
		probe:   probe("/healthz", intstr.FromInt32(8081)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: dial tcp 10.88.0.5:8081: connect: connection refused")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8081/proxy/healthz",
		want:        tried{answer: "connection refused", dropped: true},
	}, {
		// The API server's refusal names the Pod proxy's target.
		name:    "the API server refuses the Pod proxy",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
				Message: `pods "web:8080" is forbidden: User "alice" cannot get resource "pods/proxy" in API group "" in the namespace "ns"`, Details: &metav1.StatusDetails{Name: "web:8080", Kind: "pods"}})
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{notTried: `pods "web:8080" is forbidden: User "alice" cannot get resource "pods/proxy" in API group "" in the namespace "ns"`, forbidden: true},
	}, {
		// An app that answers with a Status of its own, as one built with
		// the API's libraries may: its answer.
		name:    "the app answers 403 with a Status",
		pod:     runningPod(),
		probe:   probe("/healthz", intstr.FromInt32(8080)),
		allowed: true,
		proxy: func(w http.ResponseWriter, _, _ string) {
			status(w, http.StatusForbidden, metav1.StatusReasonForbidden, "the probe may not ask")
		},
		wantRequest: "/api/v1/namespaces/ns/pods/web:8080/proxy/healthz",
		want:        tried{answer: "answered 403 Forbidden"},
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

// portForwarder stands in for the API server's port-forward, for a
// tcpSocket or grpc probe's try: it refuses the WebSocket tunnel, as an API server
// before it does, for the client to fall back to SPDY, accepts the error
// and data streams, and then answers as answer does on the error stream,
// where the kubelet says why it could not connect. The user may use every
// subresource.
func portForwarder(answer func(errorStream httpstream.Stream)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":true}}`)
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "no WebSocket tunnel", http.StatusBadRequest)
			return
		}
		if _, err := httpstream.Handshake(r, w, []string{portforward.PortForwardProtocolV1Name}); err != nil {
			return
		}
		streams := make(chan httpstream.Stream, 2)
		conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, _ <-chan struct{}) error {
			streams <- s
			return nil
		})
		if conn == nil {
			return
		}
		defer conn.Close()
		for {
			select {
			case s := <-streams:
				if s.Headers().Get(v1.StreamType) == v1.StreamTypeError {
					answer(s)
				}
			case <-conn.CloseChan():
				return
			}
		}
	})
}

// A tcpSocket probe's try through a port-forward: the kubelet connected,
// and the connection closed again, or it could not connect, and says why.
// No answer within the probe's timeout is no answer, for a tcpSocket or a
// grpc probe: the probe is not tried, and the proof after the change judges
// it; the server may hold the connection open, or the way through the API
// server may be slow. (The context's deadline stands for the timeout.)
func TestTryPortForward(t *testing.T) {
	tcp := v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromString("http")}}
	refused := `failed to connect to localhost:8080 inside namespace "4f1c", IPv4: dial tcp4 127.0.0.1:8080: connect: connection refused`
	for _, tc := range []struct {
		name    string
		handler v1.ProbeHandler
		answer  func(httpstream.Stream)
		want    tried
		// ready makes the container Ready, by its readiness probe on port
		// 8080.
		ready bool
	}{
		{"connected", tcp, func(s httpstream.Stream) { s.Close() }, tried{ok: true, answer: "connected"}, false},
		{"refused", tcp, func(s httpstream.Stream) {
			_, _ = io.WriteString(s, refused)
			s.Close()
		}, tried{answer: "connection refused", dropped: true}, false},
		// A server that listens on the Pod's IP only, which the kubelet's
		// readiness probe reaches, refuses a port-forward's connection to
		// localhost: the port was not tried as the kubelet tries it.
		{"refused, on the port that the Ready container's readiness probe asks", tcp, func(s httpstream.Stream) {
			_, _ = io.WriteString(s, refused)
			s.Close()
		}, tried{notTried: "a port-forward connects to the port on localhost inside the Pod, which refused it (" + refused + "), though the container is Ready by a readiness probe on that port, which the kubelet reaches at the Pod's IP"}, true},
		{"refused, on that port, a gRPC health check", v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 8080}}, func(s httpstream.Stream) {
			_, _ = io.WriteString(s, refused)
			s.Close()
		}, tried{notTried: "a port-forward connects to the port on localhost inside the Pod, which refused it (" + refused + "), though the container is Ready by a readiness probe on that port, which the kubelet reaches at the Pod's IP"}, true},
		{"no answer", tcp, func(httpstream.Stream) {}, tried{notTried: "no answer through a port-forward within 2s (timeoutSeconds, and 1s for the way through the API server): the container did not answer in time, or the API server cannot reach the Pod"}, false},
		{"no answer of a gRPC health check", v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9090}}, func(httpstream.Stream) {},
			tried{notTried: "no answer through a port-forward within 2s (timeoutSeconds, and 1s for the way through the API server): the container did not answer in time, or the API server cannot reach the Pod"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := httptest.NewServer(portForwarder(tc.answer))
			defer server.Close()
			config := &rest.Config{Host: server.URL}
			client := kubernetes.NewForConfigOrDie(config)
			p := &clientProber{client: client, config: config, access: newAccess(client)}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			probe := &v1.Probe{ProbeHandler: tc.handler, TimeoutSeconds: 1}
			pod := runningPod()
			if tc.ready {
				pod = readyPod()
			}
			if got := p.try(ctx, pod, &pod.Spec.Containers[0], probe); got != tc.want {
				t.Errorf("try = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A port-forward that does not open in time, as through an API server that
// does not answer, is not tried: the way there is not the container's
// answer. (The context's deadline stands for the setup's budget.)
func TestTryPortForwardNotOpened(t *testing.T) {
	release := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews") {
			portForwarder(nil).ServeHTTP(w, r)
			return
		}
		<-release
	}))
	defer server.Close()
	defer close(release)
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 1}
	want := tried{notTried: "could not open a port-forward: context deadline exceeded"}
	if got := p.try(ctx, runningPod(), &runningPod().Spec.Containers[0], probe); got != want {
		t.Errorf("try = %+v, want %+v", got, want)
	}
}

// An exec probe whose command does not exit in time through the API server
// is not tried, as an httpGet probe that gets no answer is not: the proof
// after the change judges it. (The context's deadline stands for the
// timeout.)
func TestTryExecNoAnswer(t *testing.T) {
	release := make(chan struct{})
	s := &apiServer{allowed: true, proxy: func(http.ResponseWriter, string, string) { <-release }}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/exec") {
			<-release
			return
		}
		s.ServeHTTP(w, r)
	}))
	defer server.Close()
	defer close(release)
	config := &rest.Config{Host: server.URL}
	client := kubernetes.NewForConfigOrDie(config)
	p := &clientProber{client: client, config: config, access: newAccess(client)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"pg_isready"}}}, TimeoutSeconds: 1}
	want := tried{notTried: "no answer through exec within 2s (timeoutSeconds, and 1s for the way through the API server): the container did not answer in time, or the API server cannot reach the Pod"}
	if got := p.try(ctx, runningPod(), &runningPod().Spec.Containers[0], probe); got != want {
		t.Errorf("try = %+v, want %+v", got, want)
	}
}

// transportFunc is an API server in the process, which works in a synctest
// bubble.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return f(req)
}

// The user's access is asked before the probe's timeout begins: the tries
// of a namespace wait for its one answer, and a slow one must not use their
// time up. Here the access review takes 5s, on the bubble's clock, and the
// Pod answers at once.
func TestTryAccessOutsideTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := func(req *http.Request, body string) *http.Response {
			return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: req}
		}
		config := &rest.Config{Host: "https://api.test", Transport: transportFunc(func(req *http.Request) (*http.Response, error) {
			if strings.HasSuffix(req.URL.Path, "/selfsubjectaccessreviews") {
				time.Sleep(5 * time.Second)
				return answer(req, `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":true}}`), nil
			}
			return answer(req, "ok"), nil
		})}
		client := kubernetes.NewForConfigOrDie(config)
		p := &clientProber{client: client, config: config, access: newAccess(client)}
		probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 1}
		want := tried{ok: true, answer: "answered 200 OK"}
		if got := p.try(context.Background(), runningPod(), &runningPod().Spec.Containers[0], probe); got != want {
			t.Errorf("try = %+v, want %+v", got, want)
		}
	})
}
