package probeplugin

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// keptAnnotation holds the probes that kubectl probe disable removed, for
// kubectl probe restore to put back: a JSON object of container names, each
// an object of probe types and the probe as it was, for example
//
//	{"app":{"liveness":{"httpGet":{"path":"/healthz","port":8080},...}}}
//
// One annotation for all containers, because a key made of a container name
// and a probe type could exceed the 63 characters a key's name may have.
const keptAnnotation = "probes.kep-6318.example/disabled"

// keptProbes is the content of keptAnnotation.
type keptProbes map[string]map[probeType]*v1.Probe

func readKept(pod *v1.Pod) (keptProbes, error) {
	kept := keptProbes{}
	value, ok := pod.Annotations[keptAnnotation]
	if !ok {
		return kept, nil
	}
	if err := json.Unmarshal([]byte(value), &kept); err != nil {
		return nil, fmt.Errorf("annotation %s is not what kubectl probe disable writes: %v", keptAnnotation, err)
	}
	return kept, nil
}

// write stores kept in the Pod's annotation, or removes the annotation when
// nothing is kept.
func (kept keptProbes) write(pod *v1.Pod) error {
	for name, probes := range kept {
		if len(probes) == 0 {
			delete(kept, name)
		}
	}
	if len(kept) == 0 {
		delete(pod.Annotations, keptAnnotation)
		return nil
	}
	value, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[keptAnnotation] = string(value)
	return nil
}

// change is what a command does to the probes of one container of a Pod.
// It edits pod, a copy, in place, and leaves it as it is when the Pod
// already is as asked. c points into pod.
type change interface {
	apply(pod *v1.Pod, c *v1.Container) error
}

// settings are the fields of a probe that kubectl probe set changes; nil
// fields keep their value.
type settings struct {
	handler             *v1.ProbeHandler
	initialDelaySeconds *int32
	timeoutSeconds      *int32
	periodSeconds       *int32
	successThreshold    *int32
	failureThreshold    *int32
}

// setChange sets fields of probes, adding the probes that are absent.
type setChange struct {
	types []probeType
	settings
}

func (s setChange) apply(_ *v1.Pod, c *v1.Container) error {
	for _, t := range s.types {
		field := t.of(c)
		probe := *field
		if probe == nil {
			if s.handler == nil {
				return fmt.Errorf("container %q has no %s probe; to add one, give its handler: --get-url, --open-tcp, --grpc-port or -- COMMAND", c.Name, t)
			}
			probe = &v1.Probe{}
		} else {
			probe = probe.DeepCopy()
		}
		if s.handler != nil {
			probe.ProbeHandler = *s.handler.DeepCopy()
		}
		for _, f := range []struct {
			to   *int32
			from *int32
		}{
			{&probe.InitialDelaySeconds, s.initialDelaySeconds},
			{&probe.TimeoutSeconds, s.timeoutSeconds},
			{&probe.PeriodSeconds, s.periodSeconds},
			{&probe.SuccessThreshold, s.successThreshold},
			{&probe.FailureThreshold, s.failureThreshold},
		} {
			if f.from != nil {
				*f.to = *f.from
			}
		}
		*field = probe
	}
	return nil
}

// removeChange removes probes; a probe that is absent stays absent.
type removeChange struct {
	types []probeType
}

func (r removeChange) apply(_ *v1.Pod, c *v1.Container) error {
	for _, t := range r.types {
		*t.of(c) = nil
	}
	return nil
}

// disableChange removes probes and keeps a copy of each in keptAnnotation.
type disableChange struct {
	types []probeType
}

func (d disableChange) apply(pod *v1.Pod, c *v1.Container) error {
	kept, err := readKept(pod)
	if err != nil {
		return err
	}
	for _, t := range d.types {
		field := t.of(c)
		if *field == nil {
			if kept[c.Name][t] != nil {
				continue // disabled already
			}
			return fmt.Errorf("container %q has no %s probe to disable", c.Name, t)
		}
		if kept[c.Name] == nil {
			kept[c.Name] = map[probeType]*v1.Probe{}
		}
		kept[c.Name][t] = *field
		*field = nil
	}
	return kept.write(pod)
}

// restoreChange puts back the probes that disable kept, and drops them
// from keptAnnotation. Unless force is set, it refuses to replace a probe
// that was set after disable removed it.
type restoreChange struct {
	types []probeType
	force bool
}

func (r restoreChange) apply(pod *v1.Pod, c *v1.Container) error {
	kept, err := readKept(pod)
	if err != nil {
		return err
	}
	for _, t := range r.types {
		probe := kept[c.Name][t]
		if probe == nil {
			return fmt.Errorf("container %q has no %s probe kept by kubectl probe disable; there is nothing to restore", c.Name, t)
		}
		field := t.of(c)
		if *field != nil && !r.force && !apiequality.Semantic.DeepEqual(*field, probe) {
			return fmt.Errorf("container %q has a %s probe again, set after kubectl probe disable kept the old one; --force replaces it with the kept one", c.Name, t)
		}
		*field = probe
		delete(kept[c.Name], t)
	}
	return kept.write(pod)
}
