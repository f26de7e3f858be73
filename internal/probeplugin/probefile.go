package probeplugin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// readProbe reads the whole probe that --probe-file gives: the file at
// path, or stdin for "-", as YAML or JSON, with the fields of a container's
// probe, such as
//
//	httpGet: {path: /healthz, port: 8080, httpHeaders: [{name: Host, value: api.internal}]}
//	failureThreshold: 6
//
// A field that a probe does not have is an error, not left out.
func readProbe(path string, stdin io.Reader) (*v1.Probe, error) {
	var (
		data []byte
		err  error
	)
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("--probe-file: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("--probe-file=%s: it is empty; give a probe, such as httpGet: {path: /healthz, port: 8080}", path)
	}
	probe := &v1.Probe{}
	if err := yaml.UnmarshalStrict(data, probe); err != nil {
		for _, t := range probeTypes {
			if strings.Contains(err.Error(), fmt.Sprintf("unknown field %q", t+"Probe")) {
				return nil, fmt.Errorf("--probe-file=%s: it holds the probe's fields themselves, without %sProbe: around them; --%s chooses the probe", path, t, t)
			}
		}
		return nil, fmt.Errorf("--probe-file=%s: not a probe: %w", path, err)
	}
	return probe, nil
}

// validateProbe checks, as far as the client can, that probe is a valid
// probe of type t, so that a mistake in a probe file is named before any
// Pod is read; the server dry run of each change checks the rest.
func validateProbe(probe *v1.Probe, t probeType) error {
	var errs []error
	h := probe.ProbeHandler
	handlers := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil} {
		if set {
			handlers++
		}
	}
	if handlers != 1 {
		errs = append(errs, fmt.Errorf("give one handler, exec, httpGet, tcpSocket or grpc; it has %d", handlers))
	}
	switch {
	case h.Exec != nil && (len(h.Exec.Command) == 0 || h.Exec.Command[0] == ""):
		errs = append(errs, errors.New("exec.command: give the command to run"))
	case h.HTTPGet != nil:
		errs = append(errs, validatePort("httpGet.port", h.HTTPGet.Port))
		if s := h.HTTPGet.Scheme; s != "" && s != v1.URISchemeHTTP && s != v1.URISchemeHTTPS {
			errs = append(errs, fmt.Errorf("httpGet.scheme: %q is neither HTTP nor HTTPS", s))
		}
		for i, header := range h.HTTPGet.HTTPHeaders {
			if len(validation.IsHTTPHeaderName(header.Name)) > 0 || header.Name == "" {
				errs = append(errs, fmt.Errorf("httpGet.httpHeaders[%d].name: %q is not a valid HTTP header name", i, header.Name))
			}
		}
	case h.TCPSocket != nil:
		errs = append(errs, validatePort("tcpSocket.port", h.TCPSocket.Port))
	case h.GRPC != nil:
		errs = append(errs, validatePort("grpc.port", intstr.FromInt32(h.GRPC.Port)))
	}
	for _, f := range []struct {
		name  string
		value int32
	}{
		{"initialDelaySeconds", probe.InitialDelaySeconds},
		{"timeoutSeconds", probe.TimeoutSeconds},
		{"periodSeconds", probe.PeriodSeconds},
		{"successThreshold", probe.SuccessThreshold},
		{"failureThreshold", probe.FailureThreshold},
	} {
		if f.value < 0 {
			errs = append(errs, fmt.Errorf("%s: %d is negative", f.name, f.value))
		}
	}
	if t != readiness && probe.SuccessThreshold > 1 {
		errs = append(errs, fmt.Errorf("successThreshold: must be 1 for a %s probe", t))
	}
	switch grace := probe.TerminationGracePeriodSeconds; {
	case grace != nil && t == readiness:
		errs = append(errs, errors.New("terminationGracePeriodSeconds: a readiness probe cannot have one"))
	case grace != nil && *grace <= 0:
		errs = append(errs, fmt.Errorf("terminationGracePeriodSeconds: %d is not positive", *grace))
	}
	return errors.Join(errs...)
}

// validatePort checks a port given as a number or as a container port's
// name.
func validatePort(field string, port intstr.IntOrString) error {
	if _, err := parsePort(port.String()); err != nil {
		return fmt.Errorf("%s: %v", field, err)
	}
	return nil
}
