package probeplugin

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubectl/pkg/cmd/util/podcmd"
)

// probeContainers returns the containers of a Pod spec that can have
// probes: the restartable init containers (sidecars) and the regular
// containers, in the order the spec lists them. They point into spec.
func probeContainers(spec *v1.PodSpec) []*v1.Container {
	var out []*v1.Container
	for i := range spec.InitContainers {
		if isSidecar(&spec.InitContainers[i]) {
			out = append(out, &spec.InitContainers[i])
		}
	}
	for i := range spec.Containers {
		out = append(out, &spec.Containers[i])
	}
	return out
}

func isSidecar(c *v1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}

// findContainer returns the container of the Pod with the given name, if
// it can have probes, and its field path, as events name it
// (spec.containers{app}).
func findContainer(pod *v1.Pod, name string) (*v1.Container, string, error) {
	c, fieldPath := podcmd.FindContainerByName(pod, name)
	switch {
	case c == nil:
		return nil, "", fmt.Errorf("has no container %q; its containers with probes are: %s", name, containerNames(&pod.Spec))
	case strings.HasPrefix(fieldPath, "spec.ephemeralContainers"):
		return nil, "", fmt.Errorf("container %q is an ephemeral container, which cannot have probes", name)
	case strings.HasPrefix(fieldPath, "spec.initContainers") && !isSidecar(c):
		return nil, "", fmt.Errorf("container %q is an init container without restartPolicy: Always, which cannot have probes", name)
	}
	return c, fieldPath, nil
}

// chooseContainer returns the container of the Pod that a command changes,
// and its field path: the one named, or else the Pod's only container that
// can have probes, or else the one that the annotation
// kubectl.kubernetes.io/default-container names. Unlike kubectl exec, it
// never falls back to the first of several containers: a probe changed on
// the wrong container is worse than an error. The container points into
// pod.
func chooseContainer(pod *v1.Pod, name string) (*v1.Container, string, error) {
	if name != "" {
		return findContainer(pod, name)
	}
	candidates := probeContainers(&pod.Spec)
	if len(candidates) == 1 {
		return findContainer(pod, candidates[0].Name)
	}
	if name := pod.Annotations[podcmd.DefaultContainerAnnotationName]; name != "" {
		c, fieldPath, err := findContainer(pod, name)
		if err != nil {
			return nil, "", fmt.Errorf("annotation %s: %w", podcmd.DefaultContainerAnnotationName, err)
		}
		return c, fieldPath, nil
	}
	return nil, "", fmt.Errorf("has %d containers that can have probes (%s): choose one with -c", len(candidates), containerNames(&pod.Spec))
}

// containerNames lists the names of the containers that can have probes.
func containerNames(spec *v1.PodSpec) string {
	var names []string
	for _, c := range probeContainers(spec) {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// containerStatus returns the status of the Pod's container with the given
// name, or nil when the kubelet has reported none.
func containerStatus(pod *v1.Pod, name string) *v1.ContainerStatus {
	for _, list := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}
