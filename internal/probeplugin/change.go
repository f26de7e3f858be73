package probeplugin

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// change is what a command does to the probes of one container of a Pod.
// It edits pod, a copy, in place, and leaves it as it is when the Pod
// already is as asked. c points into pod. template is the template the Pod
// was created from, nil when it has none or it is not known.
type change interface {
	apply(pod *v1.Pod, c *v1.Container, template *podTemplate) error
}

// settings are the fields of a probe that kubectl probe set changes; nil
// fields keep their value.
type settings struct {
	// probe, when set, replaces the probe as a whole (--probe-file), and
	// the other fields are not.
	probe *v1.Probe
	// handler replaces the probe's handler; one of the same kind keeps
	// what its flag cannot say: an httpGet's headers (and protocol), a
	// tcpSocket's host, a gRPC's service.
	handler *v1.ProbeHandler
	// httpHeaders replace the headers of the httpGet handler (--header).
	httpHeaders []v1.HTTPHeader
	// grpcService replaces the service of the gRPC handler
	// (--grpc-service); "" is the server's overall health.
	grpcService         *string
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

func (s setChange) apply(_ *v1.Pod, c *v1.Container, _ *podTemplate) error {
	for _, t := range s.types {
		field := t.of(c)
		if s.probe != nil {
			*field = s.probe.DeepCopy()
			defaultProbe(*field)
			continue
		}
		probe := *field
		if probe == nil {
			if s.handler == nil {
				return fmt.Errorf("container %q has no %s probe; to add one, give its handler: --get-url, --open-tcp, --grpc-port or -- COMMAND", c.Name, t)
			}
			probe = &v1.Probe{}
		} else {
			probe = probe.DeepCopy()
		}
		if err := s.setHandler(probe, c.Name, t); err != nil {
			return err
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
		defaultProbe(probe)
		*field = probe
	}
	return nil
}

// setHandler sets the handler of the container's probe of type t, and its
// headers or gRPC service; a new handler of the probe's kind keeps what its
// flag cannot say (see settings.handler).
func (s setChange) setHandler(probe *v1.Probe, container string, t probeType) error {
	if s.handler != nil {
		h := s.handler.DeepCopy()
		if h.HTTPGet != nil && probe.HTTPGet != nil {
			h.HTTPGet.HTTPHeaders = probe.HTTPGet.HTTPHeaders
			h.HTTPGet.Protocol = probe.HTTPGet.Protocol
		}
		if h.TCPSocket != nil && probe.TCPSocket != nil {
			h.TCPSocket.Host = probe.TCPSocket.Host
		}
		if h.GRPC != nil && probe.GRPC != nil {
			h.GRPC.Service = probe.GRPC.Service
		}
		probe.ProbeHandler = *h
	}
	if s.httpHeaders != nil {
		if probe.HTTPGet == nil {
			return fmt.Errorf("--header: the %s probe of container %q is not an httpGet probe (%s); give --get-url too", t, container, describeHandler(probe))
		}
		probe.HTTPGet.HTTPHeaders = slices.Clone(s.httpHeaders)
	}
	if s.grpcService != nil {
		if probe.GRPC == nil {
			return fmt.Errorf("--grpc-service: the %s probe of container %q is not a gRPC probe (%s); give --grpc-port too", t, container, describeHandler(probe))
		}
		probe.GRPC.Service = nil
		if *s.grpcService != "" {
			probe.GRPC.Service = ptr.To(*s.grpcService)
		}
	}
	return nil
}

// removeChange removes probes; a probe that is absent stays absent.
type removeChange struct {
	types []probeType
}

func (r removeChange) apply(_ *v1.Pod, c *v1.Container, _ *podTemplate) error {
	for _, t := range r.types {
		*t.of(c) = nil
	}
	return nil
}

// disableChange removes probes and keeps a copy of each in keptAnnotation.
// It never replaces a copy kept already: that would lose the probe that an
// earlier disable removed.
type disableChange struct {
	types []probeType
}

func (d disableChange) apply(pod *v1.Pod, c *v1.Container, _ *podTemplate) error {
	kept, err := readKept(pod)
	if err != nil {
		return err
	}
	for _, t := range d.types {
		field := t.of(c)
		switch {
		case *field == nil && kept[c.Name][t] != nil:
			continue // disabled already
		case *field == nil:
			return fmt.Errorf("container %q has no %s probe to disable", c.Name, t)
		case kept[c.Name][t] != nil:
			return fmt.Errorf("container %q keeps a %s probe that an earlier disable removed, and has another one set since: disabling it would lose one of them; put the kept one back (restore --force) or remove this one (set --remove)", c.Name, t)
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
// from keptAnnotation; with fromTemplate, it puts back the probes of the
// template the Pod was created from instead.
//
// Whoever may patch the Pod may write keptAnnotation, so a kept probe is
// put back only when it is the template's, or, for a Pod without a
// template, when it runs no command: unless force is set, restore refuses
// an exec probe that no template vouches for, and any probe that differs
// from the template's. It also refuses to replace a probe set after
// disable removed the kept one.
type restoreChange struct {
	types        []probeType
	force        bool
	fromTemplate bool
}

func (r restoreChange) apply(pod *v1.Pod, c *v1.Container, template *podTemplate) error {
	kept, err := readKept(pod)
	if err != nil {
		return err
	}
	for _, t := range r.types {
		field := t.of(c)
		var inTemplate *v1.Probe
		if template != nil {
			inTemplate = *t.of(template.container(c.Name))
		}
		if r.fromTemplate {
			if template == nil {
				return fmt.Errorf("has no controller whose template it was created from: there is no template to restore from")
			}
			*field = inTemplate.DeepCopy()
			delete(kept[c.Name], t)
			continue
		}
		probe := kept[c.Name][t]
		if probe == nil {
			// A Pod that a rollout created after disable has nothing
			// kept, and the template's probe.
			if template != nil && apiequality.Semantic.DeepEqual(*field, inTemplate) {
				continue
			}
			return fmt.Errorf("container %q has no %s probe kept by kubectl probe disable; there is nothing to restore (--from-template puts back its template's)", c.Name, t)
		}
		if !r.force {
			switch {
			case template != nil && !apiequality.Semantic.DeepEqual(probe, inTemplate):
				return fmt.Errorf("the %s probe kept for container %q is not the one of the template of %s, and anyone who may patch the Pod may have written it: kept %s, template %s; --force puts the kept one back, --from-template the template's",
					t, c.Name, template.name, describeProbe(probe), describeProbe(inTemplate))
			case template == nil && probe.Exec != nil:
				return fmt.Errorf("the %s probe kept for container %q runs a command, %s, and anyone who may patch the Pod may have written it; with no template to compare it with, only --force puts it back",
					t, c.Name, describeHandler(probe))
			case *field != nil && !apiequality.Semantic.DeepEqual(*field, probe):
				return fmt.Errorf("container %q has a %s probe again, set after kubectl probe disable kept the old one; --force replaces it with the kept one", c.Name, t)
			}
		}
		*field = probe
		delete(kept[c.Name], t)
	}
	return kept.write(pod)
}

// undoChange undoes a change of this run that failed, or that an
// interrupt caught in flight: it puts back the container's probes, the
// probes that keptAnnotation holds for it, and the record of the Pod's last
// run, as they were on original, the Pod as the run read it. Of the probe
// types in keep, it leaves the probe and the kept probe as changed has
// them: the change then stays in part, and so does the record of this run,
// with the container as the undo leaves it as its after, so that kubectl
// probe undo of the run puts back the rest. Anything else is left as it
// is, and it leaves the Pod alone (leftAlone) when the container's probes
// or its kept probes are no longer as changed, the Pod as the run stored
// it, has them: someone else changed them since, and undoing would
// overwrite that change, as kubectl probe undo of the run would not. A Pod
// keeps one record, of its last run: one whose probes are as changed has
// them, and only whose record is no longer the run's, as another run's of
// another container replaced it, is left alone too, and says so
// (replacedRecord).
type undoChange struct {
	original, changed *v1.Pod
	keep              []probeType
}

func (u undoChange) apply(pod *v1.Pod, c *v1.Container, _ *podTemplate) error {
	was, err := stateAt(u.original, c.Name)
	if err != nil {
		return err
	}
	stored, err := stateAt(u.changed, c.Name)
	if err != nil {
		return err
	}
	now, err := stateOf(pod, c)
	if err != nil {
		return err
	}
	if !now.equal(stored) {
		return &leftAlone{reason: fmt.Sprintf("the probes of container %q changed after this run stored its change; undoing it would overwrite that change, so it is left as it is", c.Name)}
	}
	if replaced := replacedRecord(u.changed, pod); replaced != "" {
		return &leftAlone{reason: fmt.Sprintf("the probes of container %q are still as this run stored them, and only %s", c.Name, replaced), record: true}
	}
	back := was.with(stored, u.keep)
	if err := back.set(pod, c); err != nil {
		return err
	}
	if !back.equal(was) {
		// The record is the one that this run wrote, as checked above.
		record, err := readRecord(pod)
		switch {
		case err != nil:
			return err
		case record == nil:
			return fmt.Errorf("the Pod has no record of this run")
		}
		// Of an undo's change, the run it undid is then undone in part,
		// and kubectl probe undo of that run puts back the rest.
		record.After, record.UndoneBy = back, ""
		return record.write(pod)
	}
	if record, ok := u.original.Annotations[lastRunAnnotation]; ok {
		pod.Annotations[lastRunAnnotation] = record
	} else {
		delete(pod.Annotations, lastRunAnnotation)
	}
	return nil
}

// unchangedSince makes the change only to a container whose probes of the
// types that the change makes, and the probes that disable kept for it of
// those types, are as checked has them: the run pre-checked the change
// against those. Someone else who changed them since would have their
// change overwritten, or the run's merged onto a probe never tried: the Pod
// is left as it is (leftAlone), their change with it. A change of another
// probe is kept, as any other concurrent edit of the Pod.
type unchangedSince struct {
	change
	types   []probeType
	checked containerState
}

func (u unchangedSince) apply(pod *v1.Pod, c *v1.Container, template *podTemplate) error {
	if now, _ := stateOf(pod, c); !now.only(u.types).equal(u.checked.only(u.types)) {
		return &leftAlone{reason: fmt.Sprintf("left as it is: someone else changed the probes of container %q since the pre-check", c.Name)}
	}
	return u.change.apply(pod, c, template)
}

// stateAt returns the state of the Pod's container of that name.
func stateAt(pod *v1.Pod, container string) (containerState, error) {
	c, _, err := findContainer(pod, container)
	if err != nil {
		return containerState{}, err
	}
	return stateOf(pod, c)
}

// containerNamer is a change that names the container it changes: undo
// changes the one that its run changed.
type containerNamer interface {
	containerOf(pod *v1.Pod) (string, error)
}

// modify returns a copy of pod with the change made to its container (see
// chooseContainer; or the one the change names), and the name of that
// container. It returns the copy equal to pod when the Pod is as asked
// already.
func modify(pod *v1.Pod, container string, ch change, template *podTemplate) (*v1.Pod, string, error) {
	modified := pod.DeepCopy()
	if n, ok := ch.(containerNamer); ok && container == "" {
		name, err := n.containerOf(pod)
		if err != nil {
			return nil, "", err
		}
		container = name
	}
	c, _, err := chooseContainer(modified, container)
	if err != nil {
		return nil, "", err
	}
	if err := ch.apply(modified, c, template); err != nil {
		return nil, "", err
	}
	return modified, c.Name, nil
}

// probesOf returns the liveness, readiness and startup probe of a Pod's
// container, in the order of probeTypes.
func probesOf(pod *v1.Pod, container string) map[probeType]*v1.Probe {
	c, _, err := findContainer(pod, container)
	if err != nil {
		return nil
	}
	probes := map[probeType]*v1.Probe{}
	for _, t := range probeTypes {
		probes[t] = *t.of(c)
	}
	return probes
}

// changedProbes lists the probe types of the container whose probe differs
// between before and after.
func changedProbes(before, after *v1.Pod, container string) []probeType {
	b, a := probesOf(before, container), probesOf(after, container)
	var changed []probeType
	for _, t := range probeTypes {
		if !apiequality.Semantic.DeepEqual(b[t], a[t]) {
			changed = append(changed, t)
		}
	}
	return changed
}

// joinTypes lists probe types for a message: "liveness and readiness".
func joinTypes(types []probeType) string {
	var names []string
	for _, t := range types {
		names = append(names, string(t))
	}
	return joinWords(names)
}

// joinWords lists words for a message: "a", "a and b", "a, b and c".
func joinWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func equalProbes(a, b *v1.Probe) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}
