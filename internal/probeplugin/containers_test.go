package probeplugin

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/cmd/util/podcmd"
	"k8s.io/utils/ptr"
)

// podWith returns a Pod with regular containers named names, an ordinary
// init container "prepare", a sidecar "proxy" if sidecar is set, and the
// default-container annotation if defaultContainer is set.
func podWith(sidecar bool, defaultContainer string, names ...string) *v1.Pod {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}}
	pod.Spec.InitContainers = []v1.Container{{Name: "prepare"}}
	if sidecar {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: "proxy", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)})
	}
	for _, n := range names {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: n})
	}
	pod.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug"}}}
	if defaultContainer != "" {
		pod.Annotations = map[string]string{podcmd.DefaultContainerAnnotationName: defaultContainer}
	}
	return pod
}

func TestChooseContainer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pod     *v1.Pod
		flag    string
		want    string
		wantErr string
		// wantPath is the container's field path, when the case names one.
		wantPath string
	}{
		{name: "the only container", pod: podWith(false, "", "app"), want: "app", wantPath: "spec.containers{app}"},
		{name: "named", pod: podWith(false, "", "app", "log"), flag: "log", want: "log"},
		{name: "a sidecar by name", pod: podWith(true, "", "app"), flag: "proxy", want: "proxy", wantPath: "spec.initContainers{proxy}"},
		{name: "the annotation", pod: podWith(true, "app", "app"), want: "app"},
		{name: "the flag before the annotation", pod: podWith(true, "app", "app"), flag: "proxy", want: "proxy"},
		{name: "several, no annotation", pod: podWith(true, "", "app"), wantErr: "has 2 containers that can have probes (proxy, app): choose one with -c"},
		{name: "annotation names no container", pod: podWith(false, "gone", "app", "log"), wantErr: `annotation kubectl.kubernetes.io/default-container: has no container "gone"; its containers with probes are: app, log`},
		{name: "no such container", pod: podWith(false, "", "app"), flag: "db", wantErr: `has no container "db"`},
		{name: "an ordinary init container", pod: podWith(false, "", "app"), flag: "prepare", wantErr: `container "prepare" is an init container without restartPolicy: Always`},
		{name: "an ephemeral container", pod: podWith(false, "", "app"), flag: "debug", wantErr: `container "debug" is an ephemeral container`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, path, err := chooseContainer(tc.pod, tc.flag)
			if expectError(t, err, tc.wantErr) {
				return
			}
			if c.Name != tc.want {
				t.Errorf("chose %q, want %q", c.Name, tc.want)
			}
			if tc.wantPath != "" && path != tc.wantPath {
				t.Errorf("field path %q, want %q", path, tc.wantPath)
			}
		})
	}
}

// The chosen container is the Pod's own, so a change to it changes the Pod.
func TestChooseContainerPointsIntoPod(t *testing.T) {
	pod := podWith(true, "", "app")
	c, _, err := chooseContainer(pod, "proxy")
	if err != nil {
		t.Fatal(err)
	}
	c.LivenessProbe = &v1.Probe{}
	if pod.Spec.InitContainers[1].LivenessProbe == nil {
		t.Error("the change to the chosen container did not reach the Pod")
	}
}
