package probeplugin

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// probeType is one of the three probes of a container. Its value is the
// name of its flag and of its entry in the kept-probes annotation.
type probeType string

const (
	liveness  probeType = "liveness"
	readiness probeType = "readiness"
	startup   probeType = "startup"
)

// probeTypes lists the probe types in the order they are shown.
var probeTypes = []probeType{liveness, readiness, startup}

// of returns the container's field that holds the probe.
func (p probeType) of(c *v1.Container) **v1.Probe {
	switch p {
	case liveness:
		return &c.LivenessProbe
	case readiness:
		return &c.ReadinessProbe
	default:
		return &c.StartupProbe
	}
}

// defaultProbe sets the fields of a probe that the API server defaults when
// it stores the Pod (SetDefaults_Probe and SetDefaults_HTTPGetAction of
// k8s.io/kubernetes/pkg/apis/core/v1, and the gRPC service's declared
// default), so that the probe that a run records, tries and proves is the
// one the Pod then has: an added probe, or one given whole (--probe-file).
func defaultProbe(p *v1.Probe) {
	for _, f := range []struct {
		field *int32
		value int32
	}{{&p.TimeoutSeconds, 1}, {&p.PeriodSeconds, 10}, {&p.SuccessThreshold, 1}, {&p.FailureThreshold, 3}} {
		if *f.field == 0 {
			*f.field = f.value
		}
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = v1.URISchemeHTTP
		}
	}
	if g := p.GRPC; g != nil && g.Service == nil {
		g.Service = new(string)
	}
}

// describeHandler says what a probe asks, the way kubectl describe does.
func describeHandler(p *v1.Probe) string {
	switch h := p.ProbeHandler; {
	case h.Exec != nil:
		return fmt.Sprintf("exec %v", h.Exec.Command)
	case h.HTTPGet != nil:
		scheme := strings.ToLower(string(h.HTTPGet.Scheme))
		if scheme == "" {
			scheme = "http"
		}
		return fmt.Sprintf("http-get %s://%s%s", scheme, net.JoinHostPort(h.HTTPGet.Host, h.HTTPGet.Port.String()), h.HTTPGet.Path)
	case h.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s", net.JoinHostPort(h.TCPSocket.Host, h.TCPSocket.Port.String()))
	case h.GRPC != nil:
		if h.GRPC.Service != nil && *h.GRPC.Service != "" {
			return fmt.Sprintf("grpc :%d %s", h.GRPC.Port, *h.GRPC.Service)
		}
		return fmt.Sprintf("grpc :%d", h.GRPC.Port)
	default:
		return "<no handler>"
	}
}

// describeProbe says what a probe asks and when, in kubectl describe's words:
// http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3.
func describeProbe(p *v1.Probe) string {
	if p == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s delay=%s timeout=%s period=%s #success=%d #failure=%d", describeHandler(p),
		seconds(p.InitialDelaySeconds), seconds(p.TimeoutSeconds), seconds(p.PeriodSeconds), p.SuccessThreshold, p.FailureThreshold)
}

func seconds(s int32) string {
	return (time.Duration(s) * time.Second).String()
}

// parseGetURL reads the --get-url flag, scheme://[host]:port[/path], into
// an httpGet handler. The port is a number or the name of a container
// port; without a host the kubelet asks the Pod's IP.
func parseGetURL(s string) (*v1.HTTPGetAction, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return nil, fmt.Errorf("--get-url=%s: want scheme://[host]:port[/path], such as http://:8080/healthz", s)
	}
	action := &v1.HTTPGetAction{Path: "/"}
	switch strings.ToLower(scheme) {
	case "http":
		action.Scheme = v1.URISchemeHTTP
	case "https":
		action.Scheme = v1.URISchemeHTTPS
	default:
		return nil, fmt.Errorf("--get-url=%s: the scheme must be http or https", s)
	}
	hostPort, path, hasPath := strings.Cut(rest, "/")
	if hasPath {
		action.Path = "/" + path
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, fmt.Errorf("--get-url=%s: want scheme://[host]:port[/path]: %v", s, err)
	}
	action.Host = host
	if action.Port, err = parsePort(port); err != nil {
		return nil, fmt.Errorf("--get-url=%s: %v", s, err)
	}
	return action, nil
}

// parseHeader reads a --header flag, NAME: VALUE, as curl -H takes it.
func parseHeader(s string) (v1.HTTPHeader, error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return v1.HTTPHeader{}, fmt.Errorf("--header=%s: want NAME: VALUE, such as \"Host: api.example\"", s)
	}
	name = strings.TrimSpace(name)
	if errs := validation.IsHTTPHeaderName(name); len(errs) > 0 || name == "" {
		return v1.HTTPHeader{}, fmt.Errorf("--header=%s: %q is not a valid HTTP header name", s, name)
	}
	return v1.HTTPHeader{Name: name, Value: strings.TrimSpace(value)}, nil
}

// parsePort reads a port given as a number or as the name of a container
// port.
func parsePort(s string) (intstr.IntOrString, error) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		if errs := validation.IsValidPortNum(int(n)); len(errs) > 0 {
			return intstr.IntOrString{}, fmt.Errorf("port %s: %s", s, strings.Join(errs, "; "))
		}
		return intstr.FromInt32(int32(n)), nil
	}
	if errs := validation.IsValidPortName(s); len(errs) > 0 {
		return intstr.IntOrString{}, fmt.Errorf("port %q is neither a number nor a port name: %s", s, strings.Join(errs, "; "))
	}
	return intstr.FromString(s), nil
}
