package probeplugin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestParseGetURL(t *testing.T) {
	for _, tc := range []struct {
		url     string
		want    *v1.HTTPGetAction
		wantErr bool
	}{
		{url: "http://:8080/healthz", want: &v1.HTTPGetAction{Scheme: v1.URISchemeHTTP, Port: intstr.FromInt32(8080), Path: "/healthz"}},
		{url: "https://:https/readyz?full=1", want: &v1.HTTPGetAction{Scheme: v1.URISchemeHTTPS, Port: intstr.FromString("https"), Path: "/readyz?full=1"}},
		{url: "HTTP://10.0.0.1:80", want: &v1.HTTPGetAction{Scheme: v1.URISchemeHTTP, Host: "10.0.0.1", Port: intstr.FromInt32(80), Path: "/"}},
		{url: "http://[::1]:9090/x", want: &v1.HTTPGetAction{Scheme: v1.URISchemeHTTP, Host: "::1", Port: intstr.FromInt32(9090), Path: "/x"}},
		{url: ":8080/healthz", wantErr: true},
		{url: "ftp://:21/", wantErr: true},
		{url: "http://localhost/healthz", wantErr: true},
		{url: "http://:70000/", wantErr: true},
		{url: "http://:not_a_port/", wantErr: true},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got, err := parseGetURL(tc.url)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeHandler(t *testing.T) {
	for _, tc := range []struct {
		handler v1.ProbeHandler
		want    string
	}{
		{v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intstr.FromString("http"), Path: "/healthz", Scheme: v1.URISchemeHTTPS}}, "http-get https://:http/healthz"},
		{v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Host: "::1", Port: intstr.FromInt32(80), Path: "/"}}, "http-get http://[::1]:80/"},
		{v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(5432)}}, "tcp-socket :5432"},
		{v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"pg_isready", "-h", "127.0.0.1"}}}, "exec [pg_isready -h 127.0.0.1]"},
		{v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000}}, "grpc :9000"},
		{v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000, Service: ptr.To("ready")}}, "grpc :9000 ready"},
	} {
		if got := describeHandler(&v1.Probe{ProbeHandler: tc.handler}); got != tc.want {
			t.Errorf("describeHandler = %q, want %q", got, tc.want)
		}
	}
}

func TestDescribeProbe(t *testing.T) {
	p := &v1.Probe{
		ProbeHandler:        v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(5432)}},
		InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 90, SuccessThreshold: 1, FailureThreshold: 3,
	}
	if got, want := describeProbe(p), "tcp-socket :5432 delay=5s timeout=1s period=1m30s #success=1 #failure=3"; got != want {
		t.Errorf("describeProbe = %q, want %q", got, want)
	}
	if got := describeProbe(nil); got != "<none>" {
		t.Errorf("describeProbe(nil) = %q", got)
	}
}
