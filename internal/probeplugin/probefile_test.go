package probeplugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// A whole probe is read from a file or stdin, as YAML or JSON; a field that
// a probe does not have is an error.
func TestReadProbe(t *testing.T) {
	want := &v1.Probe{
		ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
			Path: "/healthz", Port: intstr.FromInt32(8080),
			HTTPHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}},
		}},
		FailureThreshold: 6,
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		stdin         bool
		wantErr       string
	}{{
		name:    "YAML",
		content: "httpGet:\n  path: /healthz\n  port: 8080\n  httpHeaders: [{name: Host, value: api.internal}]\nfailureThreshold: 6\n",
	}, {
		name:    "JSON, on stdin",
		content: `{"httpGet":{"path":"/healthz","port":8080,"httpHeaders":[{"name":"Host","value":"api.internal"}]},"failureThreshold":6}`,
		stdin:   true,
	}, {
		name:    "a field a probe does not have",
		content: "httpGet: {path: /healthz, port: 8080}\nfailureTreshold: 6\n",
		wantErr: `not a probe: error unmarshaling JSON: while decoding JSON: json: unknown field "failureTreshold"`,
	}, {
		name:    "the probe under its container field",
		content: "livenessProbe:\n  httpGet: {path: /healthz, port: 8080}\n",
		wantErr: "it holds the probe's fields themselves, without livenessProbe: around them; --liveness chooses the probe",
	}, {
		name:    "empty",
		content: "\n",
		wantErr: "it is empty",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			path, stdin := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")), strings.NewReader("")
			if tc.stdin {
				path, stdin = "-", strings.NewReader(tc.content)
			} else if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readProbe(path, stdin)
			if expectError(t, err, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := readProbe(filepath.Join(dir, "missing"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// A probe from a file is checked as far as the client can, for the type of
// probe it becomes.
func TestValidateProbe(t *testing.T) {
	probe := func(change func(p *v1.Probe)) *v1.Probe {
		p := httpGet("/healthz")
		change(p)
		return p
	}
	for _, tc := range []struct {
		name  string
		probe *v1.Probe
		t     probeType
		want  string
	}{
		{"valid", probe(func(*v1.Probe) {}), liveness, ""},
		{"no handler", &v1.Probe{FailureThreshold: 3}, liveness, "give one handler, exec, httpGet, tcpSocket or grpc; it has 0"},
		{"two handlers", probe(func(p *v1.Probe) { p.TCPSocket = &v1.TCPSocketAction{Port: intstr.FromInt32(80)} }), readiness, "give one handler, exec, httpGet, tcpSocket or grpc; it has 2"},
		{"an exec probe without a command", &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{}}}, liveness, "exec.command: give the command to run"},
		{"an exec probe whose command is an empty word", &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"", "-c", "true"}}}}, startup, "exec.command: give the command to run"},
		{"a port out of range", probe(func(p *v1.Probe) { p.HTTPGet.Port = intstr.FromInt32(70000) }), liveness, "httpGet.port: port 70000: must be between 1 and 65535, inclusive"},
		{"a gRPC port of 0", &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{}}}, readiness, "grpc.port: port 0: must be between 1 and 65535, inclusive"},
		{"a scheme", probe(func(p *v1.Probe) { p.HTTPGet.Scheme = "FTP" }), readiness, `httpGet.scheme: "FTP" is neither HTTP nor HTTPS`},
		{"a header name", probe(func(p *v1.Probe) { p.HTTPGet.HTTPHeaders = []v1.HTTPHeader{{Name: "Bad Name"}} }), readiness, `httpGet.httpHeaders[0].name: "Bad Name" is not a valid HTTP header name`},
		{"a negative field", probe(func(p *v1.Probe) { p.PeriodSeconds = -1 }), readiness, "periodSeconds: -1 is negative"},
		{"a liveness probe's successThreshold", probe(func(p *v1.Probe) { p.SuccessThreshold = 2 }), liveness, "successThreshold: must be 1 for a liveness probe"},
		{"a readiness probe's successThreshold", probe(func(p *v1.Probe) { p.SuccessThreshold = 2 }), readiness, ""},
		{"a readiness probe's grace period", probe(func(p *v1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](5) }), readiness, "terminationGracePeriodSeconds: a readiness probe cannot have one"},
		{"a liveness probe's grace period of 0", probe(func(p *v1.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](0) }), liveness, "terminationGracePeriodSeconds: 0 is not positive"},
		{"two mistakes", probe(func(p *v1.Probe) { p.PeriodSeconds, p.FailureThreshold = -1, -2 }), readiness, "periodSeconds: -1 is negative\nfailureThreshold: -2 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := validateProbe(tc.probe, tc.t); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// --probe-file replaces the probe as a whole, a probe that is absent too;
// nothing of the old one is kept, and the fields the file leaves out are
// what the API server defaults them to.
func TestSetWholeProbe(t *testing.T) {
	file := &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromString("http")}}, PeriodSeconds: 5}
	probe := &v1.Probe{ProbeHandler: file.ProbeHandler, PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	pod := webPod()
	pod.Spec.Containers[0].LivenessProbe.HTTPGet.HTTPHeaders = []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}}
	got, err := applyChange(t, pod, setChange{types: []probeType{liveness, startup}, settings: settings{probe: file}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Spec.Containers[0]
	if diff := cmp.Diff(probe, c.LivenessProbe); diff != "" {
		t.Errorf("liveness probe (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(probe, c.StartupProbe); diff != "" || c.StartupProbe == file {
		t.Errorf("startup probe, a copy of the file's (-want +got):\n%s", diff)
	}
}
