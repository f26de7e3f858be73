package probeplugin

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// defaultContainerAnnotation names the container that kubectl exec, logs
// and attach use when none is given; kubectl probe follows it too.
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

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

// findContainer returns the container of a Pod spec with the given name, if
// it can have probes.
func findContainer(spec *v1.PodSpec, name string) (*v1.Container, error) {
	for _, c := range probeContainers(spec) {
		if c.Name == name {
			return c, nil
		}
	}
	for i := range spec.InitContainers {
		if spec.InitContainers[i].Name == name {
			return nil, fmt.Errorf("container %q is an init container without restartPolicy: Always, which cannot have probes", name)
		}
	}
	for i := range spec.EphemeralContainers {
		if spec.EphemeralContainers[i].Name == name {
			return nil, fmt.Errorf("container %q is an ephemeral container, which cannot have probes", name)
		}
	}
	return nil, fmt.Errorf("has no container %q; its containers with probes are: %s", name, containerNames(spec))
}

// chooseContainer returns the container of the Pod that a command changes:
// the one named, or else the Pod's only container that can have probes, or
// else the one its kubectl.kubernetes.io/default-container annotation names.
// It points into pod.
func chooseContainer(pod *v1.Pod, name string) (*v1.Container, error) {
	if name != "" {
		return findContainer(&pod.Spec, name)
	}
	candidates := probeContainers(&pod.Spec)
	if len(candidates) == 1 {
		return candidates[0], nil
	}
	if name := pod.Annotations[defaultContainerAnnotation]; name != "" {
		c, err := findContainer(&pod.Spec, name)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: %w", defaultContainerAnnotation, err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("has %d containers that can have probes (%s): choose one with -c", len(candidates), containerNames(&pod.Spec))
}

// containerNames lists the names of the containers that can have probes.
func containerNames(spec *v1.PodSpec) string {
	var names []string
	for _, c := range probeContainers(spec) {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}
