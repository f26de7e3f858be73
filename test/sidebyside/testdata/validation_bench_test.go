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
// go test -overlay (make bench).

package validation_test

import (
	"syscall"
	"testing"

	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
)

// kepCPUTime is the CPU time the process has used, in nanoseconds. Unlike
// the wall time of ns/op, it does not count the time other processes of a
// shared machine take from the benchmark.
func kepCPUTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkKEPValidatePodUpdate measures ValidatePodUpdate on a bound Pod
// with two regular containers, a restartable and an ordinary init container,
// for an update of one image and of one probe, with probes immutable
// (gate=off, both trees) and mutable (gate=on, patched tree only). It
// reports the CPU time per operation (cpu-ns/op) next to the wall time.
func BenchmarkKEPValidatePodUpdate(b *testing.B) {
	old := kepTemplates[1]()
	kepBound(old)
	image := old.DeepCopy()
	image.ResourceVersion = "2"
	image.Spec.Containers[0].Image += "-new"
	// The budgeted probe update is the incident story of the user guide:
	// relax a liveness timeout.
	probe := old.DeepCopy()
	probe.ResourceVersion = "2"
	probe.Spec.Containers[0].LivenessProbe.TimeoutSeconds++
	// Not budgeted, for reference: the readiness probe comes later in a
	// container than the liveness probe, so ValidatePodUpdate's first
	// comparison of the two specs (upstream's, before any munging) runs
	// further before it finds the difference.
	readiness := old.DeepCopy()
	readiness.ResourceVersion = "2"
	readiness.Spec.Containers[0].ReadinessProbe.PeriodSeconds = 20

	for _, gate := range []string{"off", "on"} {
		for _, update := range []struct {
			name     string
			pod      *core.Pod
			accepted bool
		}{
			{"image", image, true},
			{"probe", probe, gate == "on"},
			{"readiness", readiness, gate == "on"},
		} {
			b.Run("gate="+gate+"/update="+update.name, func(b *testing.B) {
				opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&update.pod.Spec, &old.Spec, &update.pod.ObjectMeta, &old.ObjectMeta)
				if !kepSetMutableProbes(&opts, gate == "on") && gate == "on" {
					b.Skip("this tree has no AllowMutableContainerProbes")
				}
				if errs := validation.ValidatePodUpdate(update.pod, old, opts); (len(errs) == 0) != update.accepted {
					b.Fatalf("accepted: %v, want %v: %v", len(errs) == 0, update.accepted, errs)
				}
				b.ReportAllocs()
				start, n := kepCPUTime(b), 0
				for b.Loop() {
					validation.ValidatePodUpdate(update.pod, old, opts)
					n++
				}
				b.ReportMetric(float64(kepCPUTime(b)-start)/float64(n), "cpu-ns/op")
			})
		}
	}
}
