package probeplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	grpcstatus "google.golang.org/grpc/status"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	utilexec "k8s.io/client-go/util/exec"
	streamhttp "k8s.io/streaming/pkg/httpstream"
)

// tried is what trying a probe against a Pod found.
type tried struct {
	// ok is set when the probe succeeded.
	ok bool
	// answer is what the container answered, or why there was no answer:
	// "answered 404 Not Found", "connection refused", "exit code 1: ...".
	answer string
	// notTried says why the probe was not tried; "" when it was.
	notTried string
	// forbidden is set when notTried is that the user may not use the
	// subresource that would try it.
	forbidden bool
	// asBefore is set when the probe failed, and asks what the container's
	// probe before the change asks (the same handler): its failure is what
	// the old probe finds too.
	asBefore bool
	// dropped is set when the try failed without an answer of the
	// container: the connection to it was refused, reset or closed before
	// the answer (EOF), or the command was killed; what a container that
	// stops during the try gives too.
	dropped bool
}

// prober tries a probe against a container of a Pod, from the client.
type prober interface {
	try(ctx context.Context, pod *v1.Pod, container *v1.Container, probe *v1.Probe) tried
}

// slack is added to a probe's timeoutSeconds when it is tried from the
// client: its way through the API server (and the kubelet, for exec and
// port-forward) is longer than the kubelet's own.
const slack = time.Second

// forwardSetup bounds the opening of a port-forward, before the probe's
// timeout begins.
const forwardSetup = 10 * time.Second

// clientProber tries probes through the API server, each kind of handler
// as close as the API lets a client get to what the kubelet does:
//
//   - httpGet: a GET through the API server's Pod proxy, which connects to
//     the Pod's IP and the probe's port, as the kubelet does, from the API
//     server's network instead of the node's;
//   - tcpSocket and grpc: a port-forward, which connects to the port on
//     localhost inside the Pod's network namespace rather than to the
//     Pod's IP (a server listening on 127.0.0.1 only passes here and fails
//     the kubelet's probe);
//   - exec: the command through exec, in the same container, as the
//     kubelet runs it.
//
// A probe that names a host is not tried: the API server reaches only the
// Pod. Nor is a probe that gets no answer within its timeoutSeconds and
// slack: the container may not have answered in time, or the way through
// the API server, which the try cannot tell from it, took the time.
type clientProber struct {
	client kubernetes.Interface
	config *rest.Config
	access *access
}

func (p *clientProber) try(ctx context.Context, pod *v1.Pod, c *v1.Container, probe *v1.Probe) tried {
	if s := containerStatus(pod, c.Name); pod.Status.Phase != v1.PodRunning || s == nil || s.State.Running == nil {
		return tried{notTried: "the container is not running"}
	}
	var verb, sub string
	switch h := probe.ProbeHandler; {
	case h.HTTPGet != nil:
		verb, sub = "get", "proxy"
	case h.TCPSocket != nil, h.GRPC != nil:
		verb, sub = "create", "portforward"
	case h.Exec != nil:
		verb, sub = "create", "exec"
	default:
		return tried{notTried: "it has no handler"}
	}
	// Asked before the probe's timeout begins: the tries of a namespace
	// wait for its one answer.
	if ok, why := p.access.allowed(ctx, pod.Namespace, verb, sub); !ok {
		return tried{notTried: why, forbidden: true}
	}
	timeout := time.Duration(max(probe.TimeoutSeconds, 1))*time.Second + slack
	switch h := probe.ProbeHandler; {
	case h.HTTPGet != nil:
		return p.tryHTTP(ctx, timeout, pod, c, h.HTTPGet)
	case h.TCPSocket != nil:
		return p.tryTCP(ctx, timeout, pod, c, h.TCPSocket)
	case h.GRPC != nil:
		return p.tryGRPC(ctx, timeout, pod, c, h.GRPC)
	}
	return p.tryExec(ctx, timeout, pod, c, probe.Exec)
}

// noAnswer is a try that got no answer through via within timeout.
func noAnswer(via string, timeout time.Duration) tried {
	return tried{notTried: fmt.Sprintf("no answer through %s within %s (timeoutSeconds, and %s for the way through the API server): the container did not answer in time, or the API server cannot reach the Pod", via, timeout, slack)}
}

// late says whether ctx ended, or its deadline passed: a connection whose
// deadline is ctx's may fail with a timeout of its own before ctx ends.
func late(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(deadline)
}

// tryHTTP asks the probe's URL through the API server's Pod proxy, within
// timeout, and succeeds on a status from 200 to 399, as the kubelet does.
func (p *clientProber) tryHTTP(ctx context.Context, timeout time.Duration, pod *v1.Pod, c *v1.Container, h *v1.HTTPGetAction) tried {
	if h.Host != "" {
		return tried{notTried: "it names a host, which the Pod proxy does not reach"}
	}
	port, err := resolvePort(h.Port.String(), c)
	if err != nil {
		return tried{answer: err.Error()}
	}
	name := fmt.Sprintf("%s:%d", pod.Name, port)
	if h.Scheme == v1.URISchemeHTTPS {
		name = "https:" + name
	}
	if h.Protocol != nil && *h.Protocol == v1.HTTPProtocolHTTP2 {
		return tried{notTried: "it speaks HTTP/2 without TLS (protocol HTTP2), and the Pod proxy speaks HTTP/1.1 to the Pod"}
	}
	for _, header := range h.HTTPHeaders {
		if apiServerHeader(header.Name) {
			return tried{notTried: fmt.Sprintf("it sends the header %s, which the API server takes as the user's and does not pass on to the Pod", http.CanonicalHeaderKey(header.Name))}
		}
	}
	path, query, _ := strings.Cut(h.Path, "?")
	restClient, ok := p.client.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok {
		return tried{notTried: "no REST client"}
	}
	u := restClient.Get().Namespace(pod.Namespace).Resource("pods").Name(name).SubResource("proxy").Suffix(path).URL()
	u.RawQuery = query
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tried{notTried: err.Error()}
	}
	for _, header := range h.HTTPHeaders {
		// Go sends a request's Host from req.Host, not from its headers;
		// the Pod proxy passes it on to the Pod, as the kubelet sends it.
		if strings.EqualFold(header.Name, "Host") {
			req.Host = header.Value
			continue
		}
		req.Header.Add(header.Name, header.Value)
	}
	resp, err := restClient.Client.Do(req)
	if err != nil {
		if late(ctx) {
			// The API server may still be dialing a Pod IP that its
			// network does not reach: no answer is not a wrong one.
			return noAnswer("the API server's Pod proxy", timeout)
		}
		return tried{notTried: fmt.Sprintf("could not reach the API server's Pod proxy: %v", err)}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 10<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return tried{ok: true, answer: "answered " + resp.Status}
	}
	// The API server answers itself, with a Status, when it cannot reach
	// the Pod or the user may not use the proxy. Its refusal names the
	// proxy's target, as the Pod's own Status would not; its other
	// answers name nothing to tell them from a Pod's, and are taken as
	// its own: the try is then no answer, and the proof after the change
	// judges the probe.
	if s := apiStatus(body); s != nil {
		switch {
		case s.Reason == metav1.StatusReasonForbidden && s.Details != nil && s.Details.Kind == "pods" && s.Details.Name == name:
			return tried{notTried: s.Message, forbidden: true}
		case strings.HasPrefix(s.Message, "error trying to reach service: "):
			message := strings.TrimPrefix(s.Message, "error trying to reach service: ")
			got := proxyError(message)
			if got.answer == "connection refused" && reachedPort(pod, c.Name, port) {
				return tried{notTried: fmt.Sprintf("the API server's way to the Pod refused the connection (%s), though the container is Ready by a readiness probe on that port, which the kubelet reaches", message)}
			}
			return got
		case s.Reason == metav1.StatusReasonBadRequest:
			return tried{notTried: "the API server does not proxy to the Pod: " + s.Message}
		}
	}
	return tried{answer: "answered " + resp.Status}
}

// reachedPort says whether the Pod's kubelet reaches the port of its
// container: the container is Ready, by a readiness probe that asks that
// port of the Pod. A try whose connection to that port was refused took
// another way than the kubelet's: the API server's, through a firewall
// that refuses it (httpGet), or a port-forward's, to the port on localhost
// inside the Pod, where a server that listens on the Pod's IP only does
// not listen (tcpSocket, grpc).
func reachedPort(pod *v1.Pod, container string, port int32) bool {
	c, _, err := findContainer(pod, container)
	status := containerStatus(pod, container)
	if err != nil || status == nil || !status.Ready || c.ReadinessProbe == nil {
		return false
	}
	var asks string
	switch h := c.ReadinessProbe.ProbeHandler; {
	case h.HTTPGet != nil && h.HTTPGet.Host == "":
		asks = h.HTTPGet.Port.String()
	case h.TCPSocket != nil && h.TCPSocket.Host == "":
		asks = h.TCPSocket.Port.String()
	case h.GRPC != nil:
		asks = strconv.Itoa(int(h.GRPC.Port))
	default:
		return false
	}
	n, err := resolvePort(asks, c)
	return err == nil && n == port
}

// apiServerHeader reports whether the API server takes a request header
// as the user's own, to authenticate or impersonate, and does not pass it
// on through the Pod proxy: the client's credentials go in Authorization,
// which a probe's header would replace.
func apiServerHeader(name string) bool {
	name = http.CanonicalHeaderKey(name)
	return name == "Authorization" || name == "Proxy-Authorization" || strings.HasPrefix(name, "Impersonate-")
}

// apiStatus returns body as a Status of the API, or nil when it is not one.
func apiStatus(body []byte) *metav1.Status {
	var s metav1.Status
	if json.Unmarshal(body, &s) != nil || s.Kind != "Status" || s.APIVersion != "v1" {
		return nil
	}
	return &s
}

// proxyError is what the API server's error connecting to the Pod says of
// the probe. Only what the Pod did is its answer: a connection refused (its
// IP was reached, and nothing listens on the port), or an error once the
// connection was made (reset, closed before the answer, a read or write
// that failed). Any other error says that the API server cannot reach the
// Pod, as on a control plane apart from the Pods' network, through a
// network proxy (konnectivity) that cannot reach the node, or behind a
// NetworkPolicy that drops it: the probe was not tried, and the proof after
// the change judges it.
func proxyError(message string) tried {
	got := connectionFailed(message)
	if got.dropped || strings.HasPrefix(message, "read ") || strings.HasPrefix(message, "write ") {
		return got
	}
	return tried{notTried: "the API server cannot reach the Pod: " + message}
}

// connectionFailed is the try whose connection to the container failed
// with the error message, shortened to its cause. It is dropped when the
// connection was refused, reset or closed before the answer (EOF): nothing
// listens on the port, or the container stopped during the try, as a
// crash-looping one does, which the pre-check tells apart (runner.check).
func connectionFailed(message string) tried {
	answer := connectionError(message)
	dropped := answer == "connection refused" || answer == "connection reset by peer" || strings.HasSuffix(message, "EOF")
	return tried{answer: answer, dropped: dropped}
}

// connectionError shortens the error of a connection that failed to its
// cause, which Pods share: "dial tcp 10.88.0.5:8081: connect: connection
// refused" is "connection refused".
func connectionError(message string) string {
	for _, known := range []string{"connection refused", "no route to host", "i/o timeout", "connection reset by peer"} {
		if strings.Contains(message, known) {
			return known
		}
	}
	return message
}

// resolvePort returns the number of a port given as a number or as the
// name of one of the container's ports, as the kubelet resolves it.
func resolvePort(port string, c *v1.Container) (int32, error) {
	if n, err := strconv.ParseInt(port, 10, 32); err == nil {
		return int32(n), nil
	}
	for _, p := range c.Ports {
		if p.Name == port {
			return p.ContainerPort, nil
		}
	}
	return 0, fmt.Errorf("container %q has no port named %q", c.Name, port)
}

// forwarded is a port-forward connection to a Pod's port, and the data
// stream of one connection through it, whose failure the kubelet says on
// failed.
type forwarded struct {
	conn   httpstream.Connection
	data   httpstream.Stream
	failed <-chan string
}

// forward opens a port-forward to the Pod's port, within forwardSetup. Its
// dialers take no context: one that ctx, or the setup's budget, ends
// first goes on apart, and closes what it opens.
func (p *clientProber) forward(ctx context.Context, pod *v1.Pod, port int32) (*forwarded, error) {
	ctx, cancel := context.WithTimeout(ctx, forwardSetup)
	defer cancel()
	type opened struct {
		f   *forwarded
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := p.openForward(pod, port)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// openForward opens a port-forward connection to the Pod's port, and the
// error and data streams of one connection through it (the port-forward
// protocol of the API), as kubectl port-forward does.
func (p *clientProber) openForward(pod *v1.Pod, port int32) (*forwarded, error) {
	u := p.client.CoreV1().RESTClient().Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(p.config)
	if err != nil {
		return nil, err
	}
	var dialer httpstream.Dialer = spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	if tunneling, err := portforward.NewSPDYOverWebsocketDialer(u, p.config); err == nil {
		dialer = portforward.NewFallbackDialer(tunneling, dialer, func(err error) bool {
			return streamhttp.IsUpgradeFailure(err) || streamhttp.IsHTTPSProxyError(err)
		})
	}
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	headers.Set(v1.StreamType, v1.StreamTypeError)
	headers.Set(v1.PortHeader, strconv.Itoa(int(port)))
	headers.Set(v1.PortForwardRequestIDHeader, "0")
	errorStream, err := conn.CreateStream(headers)
	if err != nil {
		conn.Close()
		return nil, err
	}
	// Nothing is written to the error stream: the kubelet writes to it why
	// it could not connect. Its message is taken as soon as it arrives: the
	// stream may stay open for as long as the data stream is.
	errorStream.Close()
	failed := make(chan string, 1)
	go func() {
		buf := make([]byte, 4<<10)
		n, _ := errorStream.Read(buf)
		failed <- string(buf[:n])
	}()
	headers.Set(v1.StreamType, v1.StreamTypeData)
	data, err := conn.CreateStream(headers)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &forwarded{conn: conn, data: data, failed: failed}, nil
}

// tryTCP connects to the port through a port-forward. The kubelet reports
// at once that it could not connect; a connection that it made is closed
// again, and reports nothing: connected. Nothing within timeout, from when
// the port-forward opened, is no answer, as when the server holds the
// connection open.
func (p *clientProber) tryTCP(ctx context.Context, timeout time.Duration, pod *v1.Pod, c *v1.Container, h *v1.TCPSocketAction) tried {
	if h.Host != "" {
		return tried{notTried: "it names a host, which a port-forward does not reach"}
	}
	port, err := resolvePort(h.Port.String(), c)
	if err != nil {
		return tried{answer: err.Error()}
	}
	f, err := p.forward(ctx, pod, port)
	if err != nil {
		return tried{notTried: fmt.Sprintf("could not open a port-forward: %v", err)}
	}
	defer f.conn.Close()
	f.data.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case message := <-f.failed:
		if message != "" {
			return forwardFailed(message, pod, c, port)
		}
		return tried{ok: true, answer: "connected"}
	case <-ctx.Done():
		return noAnswer("a port-forward", timeout)
	}
}

// forwardFailed is the try whose port-forward could not connect to the
// port, as the kubelet's message says: not tried when the connection was
// refused on a port that the kubelet reaches (reachedPort).
func forwardFailed(message string, pod *v1.Pod, c *v1.Container, port int32) tried {
	got := connectionFailed(message)
	if got.answer == "connection refused" && reachedPort(pod, c.Name, port) {
		return tried{notTried: fmt.Sprintf("a port-forward connects to the port on localhost inside the Pod, which refused it (%s), though the container is Ready by a readiness probe on that port, which the kubelet reaches at the Pod's IP", message)}
	}
	return got
}

// tryGRPC calls the gRPC health service's Check through a port-forward,
// within timeout from when it opened, and succeeds when it answers
// SERVING, as the kubelet does.
func (p *clientProber) tryGRPC(ctx context.Context, timeout time.Duration, pod *v1.Pod, c *v1.Container, h *v1.GRPCAction) tried {
	f, err := p.forward(ctx, pod, h.Port)
	if err != nil {
		return tried{notTried: fmt.Sprintf("could not open a port-forward: %v", err)}
	}
	defer f.conn.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var once sync.Once
	client, err := grpc.NewClient("passthrough:///"+pod.Name,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			var c net.Conn
			once.Do(func() { c = streamConn{f.data} })
			if c == nil {
				return nil, errors.New("the port-forward's one connection is used")
			}
			return c, nil
		}))
	if err != nil {
		return tried{notTried: err.Error()}
	}
	defer client.Close()
	service := ""
	if h.Service != nil {
		service = *h.Service
	}
	// The kubelet's message that it could not connect ends the call: the
	// client, which waits for the connection to be ready, would otherwise
	// wait out the timeout.
	checkCtx, cancelCheck := context.WithCancelCause(ctx)
	defer cancelCheck(nil)
	go func() {
		select {
		case message := <-f.failed:
			if message != "" {
				cancelCheck(forwardError(message))
			}
		case <-checkCtx.Done():
		}
	}()
	resp, err := healthpb.NewHealthClient(client).Check(checkCtx, &healthpb.HealthCheckRequest{Service: service}, grpc.WaitForReady(true))
	if err != nil {
		var message forwardError
		if errors.As(context.Cause(checkCtx), &message) {
			return forwardFailed(string(message), pod, c, h.Port)
		}
		if late(ctx) {
			return noAnswer("a port-forward", timeout)
		}
		return checkFailed(err)
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return tried{answer: "answered " + resp.Status.String()}
	}
	return tried{ok: true, answer: "answered SERVING"}
}

// checkFailed is the try of a gRPC health check that failed with err, the
// connection made: Unavailable is the connection lost before the answer.
func checkFailed(err error) tried {
	return tried{answer: err.Error(), dropped: grpcstatus.Code(err) == codes.Unavailable}
}

// forwardError is the kubelet's message that a port-forward could not
// connect to the Pod's port.
type forwardError string

func (e forwardError) Error() string { return string(e) }

// streamConn is a port-forward's data stream as a net.Conn.
type streamConn struct {
	httpstream.Stream
}

type portForwardAddr struct{}

func (portForwardAddr) Network() string { return "port-forward" }
func (portForwardAddr) String() string  { return "port-forward" }

func (streamConn) LocalAddr() net.Addr              { return portForwardAddr{} }
func (streamConn) RemoteAddr() net.Addr             { return portForwardAddr{} }
func (streamConn) SetDeadline(time.Time) error      { return nil }
func (streamConn) SetReadDeadline(time.Time) error  { return nil }
func (streamConn) SetWriteDeadline(time.Time) error { return nil }

// tryExec runs the probe's command in the container through exec, within
// timeout, and succeeds when it exits with 0, as the kubelet does. The
// stream's setup counts in timeout: a command that did not exit in it
// cannot be told from a slow way to it, and is no answer.
func (p *clientProber) tryExec(ctx context.Context, timeout time.Duration, pod *v1.Pod, c *v1.Container, h *v1.ExecAction) tried {
	u := p.client.CoreV1().RESTClient().Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("exec").
		VersionedParams(&v1.PodExecOptions{Container: c.Name, Command: h.Command, Stdout: true, Stderr: true}, scheme.ParameterCodec).URL()
	executor, err := remotecommand.NewSPDYExecutor(p.config, http.MethodPost, u)
	if err != nil {
		return tried{notTried: err.Error()}
	}
	if websocket, err := remotecommand.NewWebSocketExecutor(p.config, http.MethodGet, u.String()); err == nil {
		executor, _ = remotecommand.NewFallbackExecutor(websocket, executor, func(err error) bool {
			return streamhttp.IsUpgradeFailure(err) || streamhttp.IsHTTPSProxyError(err)
		})
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var output limitedBuffer
	err = executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &output, Stderr: &output})
	var exit utilexec.ExitError
	switch {
	case err == nil:
		return tried{ok: true, answer: "exited with 0"}
	case errors.As(err, &exit):
		return exited(exit, output.String())
	case late(ctx):
		return noAnswer("exec", timeout)
	}
	return tried{notTried: fmt.Sprintf("could not run it: %v", err)}
}

// exited is the try of a command that exited with another code than 0,
// having printed output.
func exited(exit utilexec.ExitError, output string) tried {
	answer := fmt.Sprintf("exited with %d", exit.ExitStatus())
	if out := strings.TrimSpace(output); out != "" {
		answer += ": " + out
	}
	// The runtime kills (SIGKILL, 128+9) the processes of a container that
	// stops, the command too.
	return tried{answer: answer, dropped: exit.ExitStatus() == 137}
}

// limitedBuffer keeps the first 1 KiB written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 1<<10 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// access asks the API server, once per namespace and subresource, whether
// the user may use a subresource of Pods.
type access struct {
	client  kubernetes.Interface
	mu      sync.Mutex
	answers map[string]string // "" when allowed, else why not
}

func newAccess(client kubernetes.Interface) *access {
	return &access{client: client, answers: map[string]string{}}
}

// allowed says whether the user may VERB pods/SUB in namespace, and if
// not, says so in words. When the API server cannot tell, it allows: the
// request itself then says.
func (a *access) allowed(ctx context.Context, namespace, verb, sub string) (bool, string) {
	key := namespace + "/" + verb + "/" + sub
	a.mu.Lock()
	defer a.mu.Unlock()
	why, ok := a.answers[key]
	if !ok {
		review, err := a.client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Verb: verb, Resource: "pods", Subresource: sub,
			}},
		}, metav1.CreateOptions{})
		if err == nil && !review.Status.Allowed {
			why = fmt.Sprintf("you may not %s pods/%s in namespace %q", verb, sub, namespace)
		}
		a.answers[key] = why
	}
	return why == "", why
}
