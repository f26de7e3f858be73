package probeplugin

import (
	"encoding/json"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// keptAnnotation holds the probes that kubectl probe disable removed, for
// kubectl probe restore to put back: a version and the kept probes by
// container name and probe type, for example
//
//	{"version":"v1","containers":{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080},...}}}}
//
// One annotation for all containers, because a key made of a container name
// and a probe type could exceed the 63 characters a key's name may have.
//
// Anyone who may patch the Pod may write it, so restore does not take it on
// trust: see restoreChange.
const keptAnnotation = "kubectl-probe.x-k8s.io/disabled"

// keptVersion is the version of keptAnnotation's format that this kubectl
// probe reads and writes.
const keptVersion = "v1"

// legacyKeptAnnotation is where kubectl probe 0.2 kept the probes, as the
// bare object of containers, without a version. It is read as well, and
// dropped when the kept probes are written again.
const legacyKeptAnnotation = "probes.kep-6318.example/disabled"

// keptProbes are the probes that an annotation keeps, by container name and
// probe type.
type keptProbes map[string]map[probeType]*v1.Probe

// keptState is the content of keptAnnotation.
type keptState struct {
	Version    string     `json:"version"`
	Containers keptProbes `json:"containers"`
}

// readKept returns the probes that a Pod keeps, in keptAnnotation and in
// legacyKeptAnnotation.
func readKept(pod *v1.Pod) (keptProbes, error) {
	kept := keptProbes{}
	if value, ok := pod.Annotations[keptAnnotation]; ok {
		var state keptState
		if err := json.Unmarshal([]byte(value), &state); err != nil {
			return nil, fmt.Errorf("annotation %s is not what kubectl probe disable writes: %v", keptAnnotation, err)
		}
		if state.Version != keptVersion {
			return nil, fmt.Errorf("annotation %s has version %q, which this kubectl probe does not know: a newer kubectl probe wrote it", keptAnnotation, state.Version)
		}
		if err := state.Containers.check(keptAnnotation); err != nil {
			return nil, err
		}
		kept = state.Containers
	}
	value, ok := pod.Annotations[legacyKeptAnnotation]
	if !ok {
		return kept, nil
	}
	var legacy keptProbes
	if err := json.Unmarshal([]byte(value), &legacy); err != nil {
		return nil, fmt.Errorf("annotation %s is not what kubectl probe disable writes: %v", legacyKeptAnnotation, err)
	}
	if err := legacy.check(legacyKeptAnnotation); err != nil {
		return nil, err
	}
	for name, probes := range legacy {
		for t, probe := range probes {
			if k := kept[name][t]; k != nil && !equalProbes(k, probe) {
				return nil, fmt.Errorf("annotations %s and %s keep different %s probes for container %q: %s and %s; remove the one that is wrong",
					keptAnnotation, legacyKeptAnnotation, t, name, describeHandler(k), describeHandler(probe))
			}
			if kept[name] == nil {
				kept[name] = map[probeType]*v1.Probe{}
			}
			kept[name][t] = probe
		}
	}
	return kept, nil
}

// check refuses a probe type that does not exist, and a null probe.
func (kept keptProbes) check(annotation string) error {
	for name, probes := range kept {
		for t, probe := range probes {
			if !slices.Contains(probeTypes, t) {
				return fmt.Errorf("annotation %s is not what kubectl probe disable writes: container %q has a probe of type %q; the types are liveness, readiness and startup", annotation, name, t)
			}
			if probe == nil {
				return fmt.Errorf("annotation %s is not what kubectl probe disable writes: container %q keeps a null %s probe", annotation, name, t)
			}
		}
	}
	return nil
}

// write stores kept in the Pod's keptAnnotation, or removes it when
// nothing is kept, and drops legacyKeptAnnotation. It leaves the Pod as it
// is when it keeps those probes already.
func (kept keptProbes) write(pod *v1.Pod) error {
	for name, probes := range kept {
		if len(probes) == 0 {
			delete(kept, name)
		}
	}
	if was, err := readKept(pod); err == nil && apiequality.Semantic.DeepEqual(was, kept) {
		return nil
	}
	delete(pod.Annotations, legacyKeptAnnotation)
	if len(kept) == 0 {
		delete(pod.Annotations, keptAnnotation)
		return nil
	}
	return writeAnnotation(pod, keptAnnotation, keptState{Version: keptVersion, Containers: kept})
}

// writeAnnotation writes v as JSON in the Pod's annotation key.
func writeAnnotation(pod *v1.Pod, key string, v any) error {
	value, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[key] = string(value)
	return nil
}
