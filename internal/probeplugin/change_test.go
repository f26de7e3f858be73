package probeplugin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// A new handler of the probe's kind keeps what its flags do not give: the
// httpGet probe's headers with --get-url, the tcpSocket probe's host with
// --open-tcp, the gRPC probe's service with --grpc-port. --header and
// --grpc-service change them, and need a probe of their kind.
func TestSetKeepsHandlerFields(t *testing.T) {
	hosted := webPod()
	hosted.Spec.Containers[0].LivenessProbe.HTTPGet.HTTPHeaders = []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}}
	grpc := webPod()
	grpc.Spec.Containers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000, Service: ptr.To("api.v1.Health")}}}
	tcp := webPod()
	tcp.Spec.Containers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Host: "10.0.0.5", Port: intstr.FromInt32(5432)}}}
	getURL := func(path string) *v1.ProbeHandler {
		return &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP}}
	}
	for _, tc := range []struct {
		name     string
		pod      *v1.Pod
		settings settings
		want     v1.ProbeHandler
		wantErr  string
	}{{
		name:     "--get-url keeps the headers",
		pod:      hosted,
		settings: settings{handler: getURL("/livez")},
		want:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/livez", Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP, HTTPHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}}}},
	}, {
		name: "--get-url keeps the protocol",
		pod: func() *v1.Pod {
			p := hosted.DeepCopy()
			p.Spec.Containers[0].LivenessProbe.HTTPGet.Protocol = ptr.To(v1.HTTPProtocolHTTP2)
			return p
		}(),
		settings: settings{handler: getURL("/livez")},
		want:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/livez", Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP, HTTPHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.internal"}}, Protocol: ptr.To(v1.HTTPProtocolHTTP2)}},
	}, {
		name:     "--get-url and --header",
		pod:      hosted,
		settings: settings{handler: getURL("/livez"), httpHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.example"}, {Name: "X-Probe", Value: "1"}}},
		want:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/livez", Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP, HTTPHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.example"}, {Name: "X-Probe", Value: "1"}}}},
	}, {
		name:     "--header alone",
		pod:      hosted,
		settings: settings{httpHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.example"}}},
		want:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080), Scheme: v1.URISchemeHTTP, HTTPHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.example"}}}},
	}, {
		name:     "--open-tcp keeps the host",
		pod:      tcp,
		settings: settings{handler: &v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromString("postgres")}}},
		want:     v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Host: "10.0.0.5", Port: intstr.FromString("postgres")}},
	}, {
		name:     "--grpc-port keeps the service",
		pod:      grpc,
		settings: settings{handler: &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9001}}},
		want:     v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9001, Service: ptr.To("api.v1.Health")}},
	}, {
		name:     "--grpc-service alone",
		pod:      grpc,
		settings: settings{grpcService: ptr.To("api.v2.Health")},
		want:     v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000, Service: ptr.To("api.v2.Health")}},
	}, {
		name:     "another kind of handler keeps nothing of the old one; its service is the API's default",
		pod:      hosted,
		settings: settings{handler: &v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000}}},
		want:     v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000, Service: ptr.To("")}},
	}, {
		name:     "--header on a gRPC probe",
		pod:      grpc,
		settings: settings{httpHeaders: []v1.HTTPHeader{{Name: "Host", Value: "api.example"}}},
		wantErr:  `--header: the liveness probe of container "app" is not an httpGet probe (grpc :9000 api.v1.Health); give --get-url too`,
	}, {
		name:     "--grpc-service on an httpGet probe",
		pod:      hosted,
		settings: settings{grpcService: ptr.To("api.v2.Health")},
		wantErr:  `--grpc-service: the liveness probe of container "app" is not a gRPC probe (http-get http://:8080/healthz); give --grpc-port too`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyChange(t, tc.pod, setChange{types: []probeType{liveness}, settings: tc.settings}, nil)
			if expectError(t, err, tc.wantErr) {
				return
			}
			if diff := cmp.Diff(tc.want, got.Spec.Containers[0].LivenessProbe.ProbeHandler); diff != "" {
				t.Errorf("handler (-want +got):\n%s", diff)
			}
		})
	}
}

// An added probe has the fields the API server defaults when it stores the
// Pod, so that what the run records is what the Pod then has, and its
// undo finds the Pod as the run left it.
func TestSetAddedProbeDefaulted(t *testing.T) {
	pod := webPod()
	pod.Spec.Containers[0].ReadinessProbe = nil
	got, err := applyChange(t, pod, setChange{types: []probeType{readiness}, settings: settings{
		handler: &v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intstr.FromInt32(8080)}}, failureThreshold: ptr.To[int32](6),
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080), Scheme: v1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 6}
	if diff := cmp.Diff(want, got.Spec.Containers[0].ReadinessProbe); diff != "" {
		t.Errorf("added readiness probe (-want +got):\n%s", diff)
	}
}

func TestParseHeader(t *testing.T) {
	for in, want := range map[string]string{
		"Host: api.example": "Host=api.example",
		"X-Token:a:b":       "X-Token=a:b",
		"X-Empty:":          "X-Empty=",
		"no colon":          `--header=no colon: want NAME: VALUE, such as "Host: api.example"`,
		"Bad Name: x":       `--header=Bad Name: x: "Bad Name" is not a valid HTTP header name`,
		": value":           `--header=: value: "" is not a valid HTTP header name`,
	} {
		h, err := parseHeader(in)
		got := h.Name + "=" + h.Value
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("parseHeader(%q) = %q, want %q", in, got, want)
		}
	}
}
