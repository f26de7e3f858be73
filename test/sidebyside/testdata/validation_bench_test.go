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
// go test -overlay (make bench), with psa_significant.go in
// k8s.io/pod-security-admission/admission.

package validation_test

import (
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conversion "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	podsecurityadmission "k8s.io/pod-security-admission/admission"
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

// BenchmarkKEPIsSignificantPodUpdate measures Pod Security's check of
// whether a Pod update needs the policy evaluated again, on the Pod of
// BenchmarkKEPValidatePodUpdate, for an update of a label only: the check
// compares every container and finds no difference, its longest answer.
// The patched tree compares each container's three probes too.
func BenchmarkKEPIsSignificantPodUpdate(b *testing.B) {
	old := kepTemplates[1]()
	kepBound(old)
	label := old.DeepCopy()
	label.ResourceVersion = "2"
	label.Labels = map[string]string{"kep-6318": "bench"}
	// Each from its own copy, as the API server decodes a request: the
	// probes of the two Pods are equal, not the same objects.
	var oldV1, newV1 corev1.Pod
	if err := corev1conversion.Convert_core_Pod_To_v1_Pod(old, &oldV1, nil); err != nil {
		b.Fatal(err)
	}
	if err := corev1conversion.Convert_core_Pod_To_v1_Pod(label, &newV1, nil); err != nil {
		b.Fatal(err)
	}
	if oldV1.Spec.Containers[0].LivenessProbe == nil || oldV1.Spec.Containers[0].LivenessProbe == newV1.Spec.Containers[0].LivenessProbe {
		b.Fatal("the Pods must have probes, in memory of their own")
	}
	if podsecurityadmission.KEPIsSignificantPodUpdate(&newV1, &oldV1) {
		b.Fatal("a label update is significant")
	}
	b.ReportAllocs()
	start, n := kepCPUTime(b), 0
	for b.Loop() {
		podsecurityadmission.KEPIsSignificantPodUpdate(&newV1, &oldV1)
		n++
	}
	b.ReportMetric(float64(kepCPUTime(b)-start)/float64(n), "cpu-ns/op")
}
