/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// This file is not part of Kubernetes: the KEP-6318 project compiles it into
// pkg/apis/core/validation of the patched tree and of the base tree with
// go test -overlay, to run the same code against both. It generates
// (old Pod, new Pod) pairs for ValidatePodUpdate from a seed.

package validation_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/randfill"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	apitesting "k8s.io/kubernetes/pkg/api/testing"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/utils/ptr"
)

// kepPair is one input of ValidatePodUpdate. Desc names the template and the
// mutations it was made from, so that a difference can be read and replayed.
type kepPair struct {
	Desc     string
	State    string // kepState.name
	Old, New *core.Pod
}

// kepGen makes pairs. A pair depends only on the seed and its index.
type kepGen struct {
	seed int64
	f    *randfill.Filler
	r    *rand.Rand
}

func newKEPGen(seed int64) *kepGen {
	return &kepGen{seed: seed, f: fuzzer.FuzzerFor(apitesting.FuzzerFuncs, rand.NewSource(seed), legacyscheme.Codecs)}
}

// reseed makes the next random choices depend only on (g.seed, i).
func (g *kepGen) reseed(i int64) {
	src := rand.NewSource(g.seed*1_000_003 + i)
	g.r = rand.New(src)
	g.f.RandSource(rand.NewSource(src.Int63()))
	g.f.NilChance(.3).NumElements(1, 3).MaxDepth(8)
}

// kepSetMutableProbes sets PodValidationOptions.AllowMutableContainerProbes,
// which only the patched tree has. It returns false when the field does not
// exist.
func kepSetMutableProbes(opts *validation.PodValidationOptions, on bool) bool {
	f := reflect.ValueOf(opts).Elem().FieldByName("AllowMutableContainerProbes")
	if !f.IsValid() {
		return false
	}
	f.SetBool(on)
	return true
}

// --- templates: valid Pods ---

func kepExecProbe(cmd string) *core.Probe {
	return &core.Probe{
		ProbeHandler:     core.ProbeHandler{Exec: &core.ExecAction{Command: []string{cmd}}},
		TimeoutSeconds:   1,
		PeriodSeconds:    10,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

func kepHTTPProbe(port intstr.IntOrString) *core.Probe {
	p := kepExecProbe("")
	p.Exec = nil
	p.HTTPGet = &core.HTTPGetAction{Path: "/healthz", Port: port, Scheme: core.URISchemeHTTP}
	return p
}

func kepTCPProbe(port int) *core.Probe {
	p := kepExecProbe("")
	p.Exec = nil
	p.TCPSocket = &core.TCPSocketAction{Port: intstr.FromInt32(int32(port))}
	return p
}

func kepGRPCProbe(port int32) *core.Probe {
	p := kepExecProbe("")
	p.Exec = nil
	p.GRPC = &core.GRPCAction{Port: port, Service: ptr.To("")}
	return p
}

func kepContainer(name string) core.Container {
	return core.Container{
		Name:                     name,
		Image:                    "registry.k8s.io/" + name + ":1.0",
		ImagePullPolicy:          core.PullIfNotPresent,
		TerminationMessagePolicy: core.TerminationMessageReadFile,
		TerminationMessagePath:   "/dev/termination-log",
	}
}

func kepPod(name string) *core.Pod {
	return &core.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       "ns",
			ResourceVersion: "1",
			Labels:          map[string]string{"app": name},
		},
		Spec: core.PodSpec{
			RestartPolicy:                 core.RestartPolicyAlways,
			DNSPolicy:                     core.DNSClusterFirst,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			SecurityContext:               &core.PodSecurityContext{},
			SchedulerName:                 "default-scheduler",
			EnableServiceLinks:            ptr.To(true),
		},
		Status: core.PodStatus{Phase: core.PodRunning},
	}
}

// kepTemplates are hand-written valid Pods covering every container kind.
var kepTemplates = []func() *core.Pod{
	// One regular container with a liveness probe.
	func() *core.Pod {
		pod := kepPod("single")
		c := kepContainer("app")
		c.LivenessProbe = kepExecProbe("live")
		pod.Spec.Containers = []core.Container{c}
		return pod
	},
	// Two regular containers, an ordinary and a restartable init container.
	func() *core.Pod {
		pod := kepPod("sidecar")
		app := kepContainer("app")
		app.Ports = []core.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: core.ProtocolTCP}}
		app.ReadinessProbe = kepHTTPProbe(intstr.FromString("http"))
		app.LivenessProbe = kepTCPProbe(8080)
		worker := kepContainer("worker")
		setup := kepContainer("setup")
		sidecar := kepContainer("sidecar")
		sidecar.RestartPolicy = ptr.To(core.ContainerRestartPolicyAlways)
		sidecar.StartupProbe = kepGRPCProbe(9090)
		sidecar.ReadinessProbe = kepExecProbe("ready")
		pod.Spec.Containers = []core.Container{app, worker}
		pod.Spec.InitContainers = []core.Container{setup, sidecar}
		return pod
	},
	// Every probe type everywhere it is allowed, an ephemeral container,
	// scheduling gates, tolerations and an active deadline.
	func() *core.Pod {
		pod := kepPod("full")
		app := kepContainer("app")
		app.Ports = []core.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: core.ProtocolTCP}}
		app.LivenessProbe = kepHTTPProbe(intstr.FromInt32(8080))
		app.ReadinessProbe = kepExecProbe("ready")
		app.StartupProbe = kepTCPProbe(8080)
		app.StartupProbe.TerminationGracePeriodSeconds = ptr.To[int64](5)
		app.Resources = core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse("100m")},
			Limits:   core.ResourceList{core.ResourceCPU: resource.MustParse("200m")},
		}
		app.Env = []core.EnvVar{{Name: "MODE", Value: "prod"}}
		sidecar := kepContainer("sidecar")
		sidecar.RestartPolicy = ptr.To(core.ContainerRestartPolicyAlways)
		sidecar.LivenessProbe = kepGRPCProbe(9090)
		sidecar.ReadinessProbe = kepExecProbe("ready")
		sidecar.StartupProbe = kepExecProbe("start")
		setup := kepContainer("setup")
		pod.Spec.Containers = []core.Container{app}
		pod.Spec.InitContainers = []core.Container{sidecar, setup}
		pod.Spec.EphemeralContainers = []core.EphemeralContainer{{
			EphemeralContainerCommon: core.EphemeralContainerCommon(kepContainer("debugger")),
		}}
		pod.Spec.SchedulingGates = []core.PodSchedulingGate{{Name: "example.com/gate"}}
		pod.Spec.Tolerations = []core.Toleration{{Key: "k", Operator: core.TolerationOpExists, Effect: core.TaintEffectNoSchedule}}
		pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](3600)
		pod.Status.Phase = core.PodPending
		return pod
	},
}

// --- random valid Pods from upstream's API fuzzer ---

// kepDNSLabel turns a fuzzed string into a DNS label.
func kepDNSLabel(s, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
		if b.Len() == 20 {
			break
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// kepValidProbe repairs a fuzzed probe: it keeps one handler and the fuzzed
// numbers, brought into their valid ranges. Readiness probes take no
// terminationGracePeriodSeconds; liveness and startup probes need a success
// threshold of 1.
func kepValidProbe(p *core.Probe, kind string, port int32) *core.Probe {
	out := &core.Probe{
		InitialDelaySeconds: abs32(p.InitialDelaySeconds) % 120,
		TimeoutSeconds:      1 + abs32(p.TimeoutSeconds)%30,
		PeriodSeconds:       1 + abs32(p.PeriodSeconds)%60,
		SuccessThreshold:    1,
		FailureThreshold:    1 + abs32(p.FailureThreshold)%10,
	}
	if kind == "readinessProbe" {
		out.SuccessThreshold = 1 + abs32(p.SuccessThreshold)%3
	} else if p.TerminationGracePeriodSeconds != nil {
		out.TerminationGracePeriodSeconds = ptr.To(1 + int64(abs32(int32(*p.TerminationGracePeriodSeconds)))%300)
	}
	switch {
	case p.Exec != nil:
		out.Exec = &core.ExecAction{Command: []string{"/bin/check"}}
		for _, arg := range p.Exec.Command {
			out.Exec.Command = append(out.Exec.Command, arg)
		}
	case p.HTTPGet != nil:
		out.HTTPGet = &core.HTTPGetAction{Path: "/" + kepDNSLabel(p.HTTPGet.Path, "healthz"), Port: intstr.FromInt32(port), Scheme: core.URISchemeHTTP}
		if p.HTTPGet.Scheme == core.URISchemeHTTPS {
			out.HTTPGet.Scheme = core.URISchemeHTTPS
		}
		for _, h := range p.HTTPGet.HTTPHeaders {
			out.HTTPGet.HTTPHeaders = append(out.HTTPGet.HTTPHeaders, core.HTTPHeader{Name: "X-" + kepDNSLabel(h.Name, "h"), Value: h.Value})
		}
	case p.GRPC != nil:
		out.GRPC = &core.GRPCAction{Port: port, Service: ptr.To(kepDNSLabel(ptr.Deref(p.GRPC.Service, ""), ""))}
	default:
		out.TCPSocket = &core.TCPSocketAction{Port: intstr.FromInt32(port)}
	}
	return out
}

func abs32(v int32) int32 {
	if v < 0 {
		if v == -v {
			return 0
		}
		return -v
	}
	return v
}

// fuzzedProbe is a probe from upstream's fuzzer, as is: mostly invalid.
func (g *kepGen) fuzzedProbe() *core.Probe {
	p := &core.Probe{}
	g.f.Fill(p)
	return p
}

// fuzzedContainer is a valid container with a name, image, env, port and
// probes taken from upstream's fuzzer.
func (g *kepGen) fuzzedContainer(name string, probes bool) core.Container {
	var fz core.Container
	g.f.Fill(&fz)
	c := kepContainer(name)
	c.Image = "registry.k8s.io/" + kepDNSLabel(fz.Image, "img") + ":" + kepDNSLabel(fz.TerminationMessagePath, "v1")
	for i, e := range fz.Env {
		if i == 3 {
			break
		}
		c.Env = append(c.Env, core.EnvVar{Name: "E_" + strings.ToUpper(kepDNSLabel(e.Name, "x")), Value: e.Value})
	}
	port := int32(1 + g.r.Intn(65535))
	c.Ports = []core.ContainerPort{{Name: "p" + kepDNSLabel(fz.Name, "x")[:1], ContainerPort: port, Protocol: core.ProtocolTCP}}
	if probes {
		for _, kind := range kepProbeKinds {
			if g.r.Intn(3) > 0 {
				*kepProbeField(&c, kind) = kepValidProbe(g.fuzzedProbe(), kind, port)
			}
		}
	}
	return c
}

// fuzzedPod is a valid Pod of 1-3 regular containers, 0-2 init containers
// (restartable or not) and 0-1 ephemeral container, with labels and
// container contents from upstream's fuzzer.
func (g *kepGen) fuzzedPod() *core.Pod {
	var fz core.Pod
	g.f.Fill(&fz)
	pod := kepPod("fuzz-" + kepDNSLabel(fz.Name, "pod"))
	keys := make([]string, 0, len(fz.Labels))
	for k := range fz.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pod.Labels["l"+kepDNSLabel(k, "k")] = kepDNSLabel(fz.Labels[k], "")
	}
	for i := range 1 + g.r.Intn(3) {
		pod.Spec.Containers = append(pod.Spec.Containers, g.fuzzedContainer(fmt.Sprintf("c%d", i), true))
	}
	for i := range g.r.Intn(3) {
		restartable := g.r.Intn(2) == 0
		c := g.fuzzedContainer(fmt.Sprintf("init%d", i), restartable)
		if restartable {
			c.RestartPolicy = ptr.To(core.ContainerRestartPolicyAlways)
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	}
	if g.r.Intn(4) == 0 {
		c := g.fuzzedContainer("debug", false)
		c.Ports = nil
		pod.Spec.EphemeralContainers = []core.EphemeralContainer{{EphemeralContainerCommon: core.EphemeralContainerCommon(c)}}
	}
	if g.r.Intn(4) == 0 {
		pod.Spec.RestartPolicy = core.RestartPolicyOnFailure
	}
	return pod
}

// --- mutations ---

var kepProbeKinds = []string{"livenessProbe", "readinessProbe", "startupProbe"}

func kepProbeField(c *core.Container, kind string) **core.Probe {
	switch kind {
	case "livenessProbe":
		return &c.LivenessProbe
	case "readinessProbe":
		return &c.ReadinessProbe
	default:
		return &c.StartupProbe
	}
}

// kepRef names a container of a Pod.
type kepRef struct {
	list string // containers, initContainers or ephemeralContainers
	ix   int
}

func (r kepRef) String() string { return fmt.Sprintf("%s[%d]", r.list, r.ix) }

func (r kepRef) get(pod *core.Pod) *core.Container {
	switch r.list {
	case "containers":
		return &pod.Spec.Containers[r.ix]
	case "initContainers":
		return &pod.Spec.InitContainers[r.ix]
	default:
		return (*core.Container)(&pod.Spec.EphemeralContainers[r.ix].EphemeralContainerCommon)
	}
}

func (r kepRef) len(pod *core.Pod) int {
	switch r.list {
	case "containers":
		return len(pod.Spec.Containers)
	case "initContainers":
		return len(pod.Spec.InitContainers)
	default:
		return len(pod.Spec.EphemeralContainers)
	}
}

func kepRefs(pod *core.Pod) []kepRef {
	var refs []kepRef
	for i := range pod.Spec.Containers {
		refs = append(refs, kepRef{"containers", i})
	}
	for i := range pod.Spec.InitContainers {
		refs = append(refs, kepRef{"initContainers", i})
	}
	for i := range pod.Spec.EphemeralContainers {
		refs = append(refs, kepRef{"ephemeralContainers", i})
	}
	return refs
}

// kepProbeMutation changes one probe field. It returns false when it does not
// apply (for example the probe is nil and the mutation edits it).
type kepProbeMutation struct {
	name string
	fn   func(g *kepGen, p **core.Probe) bool
}

func kepEdit(fn func(p *core.Probe)) func(*kepGen, **core.Probe) bool {
	return func(_ *kepGen, p **core.Probe) bool {
		if *p == nil {
			return false
		}
		fn(*p)
		return true
	}
}

func kepHandler(fn func(p *core.Probe)) func(p *core.Probe) {
	return func(p *core.Probe) {
		p.ProbeHandler = core.ProbeHandler{}
		fn(p)
	}
}

var kepProbeMutations = []kepProbeMutation{
	{"add", func(_ *kepGen, p **core.Probe) bool {
		if *p != nil {
			return false
		}
		*p = kepExecProbe("added")
		return true
	}},
	{"remove", func(_ *kepGen, p **core.Probe) bool {
		if *p == nil {
			return false
		}
		*p = nil
		return true
	}},
	{"handler=exec", kepEdit(kepHandler(func(p *core.Probe) { p.Exec = &core.ExecAction{Command: []string{"cat", "/tmp/ok"}} }))},
	{"handler=exec-empty", kepEdit(kepHandler(func(p *core.Probe) { p.Exec = &core.ExecAction{} }))},
	{"handler=httpGet", kepEdit(kepHandler(func(p *core.Probe) {
		p.HTTPGet = &core.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8081), Scheme: core.URISchemeHTTP}
	}))},
	{"handler=httpGet-named-port", kepEdit(kepHandler(func(p *core.Probe) {
		p.HTTPGet = &core.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http"), Scheme: core.URISchemeHTTP}
	}))},
	{"handler=httpGet-unknown-port-name", kepEdit(kepHandler(func(p *core.Probe) {
		p.HTTPGet = &core.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("Not_A_Name"), Scheme: core.URISchemeHTTP}
	}))},
	{"handler=httpGet-host", kepEdit(kepHandler(func(p *core.Probe) {
		p.HTTPGet = &core.HTTPGetAction{Path: "/", Host: "169.254.169.254", Port: intstr.FromInt32(80), Scheme: core.URISchemeHTTP}
	}))},
	{"handler=httpGet-bad-scheme", kepEdit(kepHandler(func(p *core.Probe) {
		p.HTTPGet = &core.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80), Scheme: "FTP"}
	}))},
	{"handler=tcpSocket", kepEdit(kepHandler(func(p *core.Probe) { p.TCPSocket = &core.TCPSocketAction{Port: intstr.FromInt32(9000)} }))},
	{"handler=tcpSocket-port-0", kepEdit(kepHandler(func(p *core.Probe) { p.TCPSocket = &core.TCPSocketAction{Port: intstr.FromInt32(0)} }))},
	{"handler=grpc", kepEdit(kepHandler(func(p *core.Probe) { p.GRPC = &core.GRPCAction{Port: 9091, Service: ptr.To("health")} }))},
	{"handler=grpc-port-70000", kepEdit(kepHandler(func(p *core.Probe) { p.GRPC = &core.GRPCAction{Port: 70000, Service: ptr.To("")} }))},
	{"handler=none", kepEdit(kepHandler(func(p *core.Probe) {}))},
	{"handler=two", kepEdit(func(p *core.Probe) {
		p.Exec = &core.ExecAction{Command: []string{"true"}}
		p.TCPSocket = &core.TCPSocketAction{Port: intstr.FromInt32(9000)}
	})},
	{"httpGet.path", kepEdit(func(p *core.Probe) {
		if p.HTTPGet != nil {
			p.HTTPGet.Path += "/v2"
		}
	})},
	{"httpGet.headers", kepEdit(func(p *core.Probe) {
		if p.HTTPGet != nil {
			p.HTTPGet.HTTPHeaders = append(p.HTTPGet.HTTPHeaders, core.HTTPHeader{Name: "X-Probe", Value: "1"})
		}
	})},
	{"exec.command", kepEdit(func(p *core.Probe) {
		if p.Exec != nil {
			p.Exec.Command = append(slices.Clip(p.Exec.Command), "--verbose")
		}
	})},
	{"timeoutSeconds=5", kepEdit(func(p *core.Probe) { p.TimeoutSeconds = 5 })},
	{"timeoutSeconds=0", kepEdit(func(p *core.Probe) { p.TimeoutSeconds = 0 })},
	{"timeoutSeconds=-1", kepEdit(func(p *core.Probe) { p.TimeoutSeconds = -1 })},
	{"periodSeconds=1", kepEdit(func(p *core.Probe) { p.PeriodSeconds = 1 })},
	{"periodSeconds=60", kepEdit(func(p *core.Probe) { p.PeriodSeconds = 60 })},
	{"periodSeconds=-1", kepEdit(func(p *core.Probe) { p.PeriodSeconds = -1 })},
	{"successThreshold=2", kepEdit(func(p *core.Probe) { p.SuccessThreshold = 2 })},
	{"successThreshold=0", kepEdit(func(p *core.Probe) { p.SuccessThreshold = 0 })},
	{"failureThreshold=10", kepEdit(func(p *core.Probe) { p.FailureThreshold = 10 })},
	{"failureThreshold=-1", kepEdit(func(p *core.Probe) { p.FailureThreshold = -1 })},
	{"initialDelaySeconds=30", kepEdit(func(p *core.Probe) { p.InitialDelaySeconds = 30 })},
	{"initialDelaySeconds=-1", kepEdit(func(p *core.Probe) { p.InitialDelaySeconds = -1 })},
	{"terminationGracePeriodSeconds=10", kepEdit(func(p *core.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](10) })},
	{"terminationGracePeriodSeconds=0", kepEdit(func(p *core.Probe) { p.TerminationGracePeriodSeconds = ptr.To[int64](0) })},
	{"terminationGracePeriodSeconds=nil", kepEdit(func(p *core.Probe) { p.TerminationGracePeriodSeconds = nil })},
	{"unchanged", kepEdit(func(p *core.Probe) {})},
	{"fuzzed", func(g *kepGen, p **core.Probe) bool {
		*p = g.fuzzedProbe()
		return true
	}},
	{"fuzzed-valid", func(g *kepGen, p **core.Probe) bool {
		*p = kepValidProbe(g.fuzzedProbe(), "readinessProbe", 8080)
		return true
	}},
}

// kepOtherMutation changes something other than a probe, on the new Pod.
type kepOtherMutation struct {
	name string
	fn   func(g *kepGen, pod *core.Pod, c *core.Container) bool
}

var kepOtherMutations = []kepOtherMutation{
	{"image", func(_ *kepGen, _ *core.Pod, c *core.Container) bool { c.Image += "-new"; return true }},
	{"image-empty", func(_ *kepGen, _ *core.Pod, c *core.Container) bool { c.Image = ""; return true }},
	{"resources", func(_ *kepGen, _ *core.Pod, c *core.Container) bool {
		c.Resources.Requests = core.ResourceList{core.ResourceMemory: resource.MustParse("64Mi")}
		return true
	}},
	{"env", func(_ *kepGen, _ *core.Pod, c *core.Container) bool {
		c.Env = append(slices.Clip(c.Env), core.EnvVar{Name: "ADDED", Value: "1"})
		return true
	}},
	{"ports", func(_ *kepGen, _ *core.Pod, c *core.Container) bool {
		c.Ports = append(slices.Clip(c.Ports), core.ContainerPort{ContainerPort: 7777, Protocol: core.ProtocolTCP})
		return true
	}},
	{"container-name", func(_ *kepGen, _ *core.Pod, c *core.Container) bool { c.Name += "x"; return true }},
	{"container-restartPolicy", func(_ *kepGen, _ *core.Pod, c *core.Container) bool {
		if c.RestartPolicy == nil {
			c.RestartPolicy = ptr.To(core.ContainerRestartPolicyAlways)
		} else {
			c.RestartPolicy = nil
		}
		return true
	}},
	{"label", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool { pod.Labels["changed"] = "yes"; return true }},
	{"annotation", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations["example.com/note"] = "x"
		return true
	}},
	{"activeDeadlineSeconds", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
		return true
	}},
	{"activeDeadlineSeconds-raise", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](1 << 20)
		return true
	}},
	{"toleration", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		pod.Spec.Tolerations = append(slices.Clip(pod.Spec.Tolerations), core.Toleration{Key: "added", Operator: core.TolerationOpExists})
		return true
	}},
	{"schedulingGates-removed", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		if len(pod.Spec.SchedulingGates) == 0 {
			return false
		}
		pod.Spec.SchedulingGates = nil
		return true
	}},
	{"terminationGracePeriodSeconds", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5)
		return true
	}},
	{"container-added", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		pod.Spec.Containers = append(slices.Clip(pod.Spec.Containers), kepContainer("extra"))
		return true
	}},
	{"container-removed", func(_ *kepGen, pod *core.Pod, _ *core.Container) bool {
		if len(pod.Spec.Containers) < 2 {
			return false
		}
		pod.Spec.Containers = pod.Spec.Containers[:len(pod.Spec.Containers)-1]
		return true
	}},
}

// kepState is what the stored Pod is: running, terminating, terminal or a
// mirror Pod. It is applied to both Pods of a pair.
type kepState struct {
	name string
	fn   func(pod *core.Pod)
}

// kepBound binds the Pod to a node, as a Pod that ran is, unless it has
// scheduling gates.
func kepBound(pod *core.Pod) {
	if len(pod.Spec.SchedulingGates) == 0 {
		pod.Spec.NodeName = "node-1"
	}
}

var kepStates = []kepState{
	{"running", kepBound},
	{"terminating", func(pod *core.Pod) {
		kepBound(pod)
		pod.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		pod.DeletionGracePeriodSeconds = ptr.To[int64](30)
	}},
	{"succeeded", func(pod *core.Pod) {
		kepBound(pod)
		pod.Status.Phase = core.PodSucceeded
	}},
	{"failed", func(pod *core.Pod) {
		kepBound(pod)
		pod.Status.Phase = core.PodFailed
	}},
	{"pending", func(pod *core.Pod) { pod.Status.Phase = core.PodPending }},
	{"mirror", func(pod *core.Pod) {
		// Mirror Pods are bound and have no scheduling gates.
		pod.Spec.SchedulingGates = nil
		kepBound(pod)
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[core.MirrorPodAnnotationKey] = "mirror"
	}},
}

// kepStep is one change from the old Pod to the new one: a probe mutation or
// another mutation, on a container (or, for Pod-level mutations, the Pod).
type kepStep struct {
	probe *kepProbeMutation
	kind  string
	other *kepOtherMutation
	ref   kepRef
}

// apply applies the step to pair.New and returns its description, or "" when
// it does not apply.
func (s kepStep) apply(g *kepGen, pair *kepPair) string {
	if s.ref.ix < 0 || s.ref.ix >= s.ref.len(pair.New) {
		return ""
	}
	c := s.ref.get(pair.New)
	switch {
	case s.probe != nil:
		if !s.probe.fn(g, kepProbeField(c, s.kind)) {
			return ""
		}
		return fmt.Sprintf("%s.%s:%s", s.ref, s.kind, s.probe.name)
	default:
		if !s.other.fn(g, pair.New, c) {
			return ""
		}
		return fmt.Sprintf("%s:%s", s.ref, s.other.name)
	}
}

// kepNumSteps is the number of distinct steps that kepStepFrom can pick.
var kepNumSteps = len(kepProbeMutations)*len(kepProbeKinds) + len(kepOtherMutations)

// kepStepFrom picks step n (mod kepNumSteps) on container ref.
func kepStepFrom(n int, ref kepRef) kepStep {
	n %= kepNumSteps
	if n < len(kepProbeMutations)*len(kepProbeKinds) {
		return kepStep{probe: &kepProbeMutations[n/len(kepProbeKinds)], kind: kepProbeKinds[n%len(kepProbeKinds)], ref: ref}
	}
	return kepStep{other: &kepOtherMutations[n-len(kepProbeMutations)*len(kepProbeKinds)], ref: ref}
}

// newPair makes a pair from a base Pod, a state and steps. The steps pick
// their container by index (mod the number of containers).
func (g *kepGen) newPair(desc string, old *core.Pod, state int, steps []int, refs []int) kepPair {
	st := kepStates[state%len(kepStates)]
	st.fn(old)
	pair := kepPair{State: st.name, Old: old, New: old.DeepCopy()}
	pair.New.ResourceVersion = "2"
	all := kepRefs(old)
	parts := []string{desc, "state=" + st.name}
	for i, n := range steps {
		ref := kepRef{ix: -1}
		if len(all) > 0 {
			ref = all[refs[i]%len(all)]
		}
		if d := kepStepFrom(n, ref).apply(g, &pair); d != "" {
			parts = append(parts, d)
		}
	}
	pair.Desc = strings.Join(parts, " ")
	return pair
}

// kepSystematicCount is the number of pairs that enumerate every step on
// every container of every template in every state.
func kepSystematicCount() int {
	n := 0
	for _, t := range kepTemplates {
		n += len(kepRefs(t())) * kepNumSteps * len(kepStates)
	}
	return n
}

// pair returns pair i. The first pairs enumerate every step, container,
// template and state; the rest are random: a template or a fuzzed Pod, a
// random state, and one to three random steps.
func (g *kepGen) pair(i int) kepPair {
	g.reseed(int64(i))
	j := i
	for ti, t := range kepTemplates {
		pod := t()
		n := len(kepRefs(pod)) * kepNumSteps * len(kepStates)
		if j >= n {
			j -= n
			continue
		}
		state, rest := j%len(kepStates), j/len(kepStates)
		return g.newPair(fmt.Sprintf("template=%d", ti), pod, state, []int{rest % kepNumSteps}, []int{rest / kepNumSteps})
	}
	var pod *core.Pod
	desc := "fuzzed"
	if k := g.r.Intn(len(kepTemplates) + 3); k < len(kepTemplates) {
		pod, desc = kepTemplates[k](), fmt.Sprintf("template=%d", k)
	} else {
		pod = g.fuzzedPod()
	}
	state := 0
	if g.r.Intn(3) == 0 {
		state = g.r.Intn(len(kepStates))
	}
	steps, refs := make([]int, 1+g.r.Intn(3)), make([]int, 3)
	for k := range steps {
		steps[k], refs[k] = g.r.Intn(kepNumSteps), g.r.Intn(16)
	}
	return g.newPair(desc, pod, state, steps, refs)
}
