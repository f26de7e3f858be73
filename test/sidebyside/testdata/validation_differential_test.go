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
// go test -overlay (make test-differential). Each tree writes one JSON line
// per pair to HARNESS_DIFF_OUT, a kepdiff.Record (the project's
// internal/differential/record, compiled in beside it); the project's
// cmd/differential compares them.

package validation_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1conversion "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	kepdiff "k8s.io/kubernetes/pkg/apis/core/validation/internal/kepdiff"
	podsecurityadmission "k8s.io/pod-security-admission/admission"
	"sigs.k8s.io/yaml"
)

// kepErrors is errs as compared between the trees.
func kepErrors(errs field.ErrorList) []kepdiff.Error {
	out := make([]kepdiff.Error, 0, len(errs))
	for _, e := range errs {
		bad, err := json.Marshal(e.BadValue)
		if err != nil {
			bad = []byte(fmt.Sprintf("%v", e.BadValue))
		}
		out = append(out, kepdiff.Error{Type: string(e.Type), Field: e.Field, Detail: e.Detail, BadValue: string(bad)})
	}
	return out
}

func kepRestartable(c *core.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == core.ContainerRestartPolicyAlways
}

func kepProbesEqual(a, b *core.Container) bool {
	return apiequality.Semantic.DeepEqual(a.LivenessProbe, b.LivenessProbe) &&
		apiequality.Semantic.DeepEqual(a.ReadinessProbe, b.ReadinessProbe) &&
		apiequality.Semantic.DeepEqual(a.StartupProbe, b.StartupProbe)
}

func kepV1(pod *core.Pod) *corev1.Pod {
	out := &corev1.Pod{}
	if err := corev1conversion.Convert_core_Pod_To_v1_Pod(pod, out, nil); err != nil {
		panic(err)
	}
	return out
}

// kepEvaluate evaluates one pair in this tree.
func kepEvaluate(t testing.TB, i int, pair kepPair, requireOn bool) kepdiff.Record {
	// Hash before evaluating, so that a mutation by validation shows up as a
	// hash difference too.
	raw, err := json.Marshal([]*core.Pod{pair.Old, pair.New})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	rec := kepdiff.Record{I: i, Hash: hex.EncodeToString(sum[:12]), Desc: pair.Desc}

	opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pair.New.Spec, &pair.Old.Spec, &pair.New.ObjectMeta, &pair.Old.ObjectMeta)
	off := opts
	if kepSetMutableProbes(&off, false) {
		on := opts
		kepSetMutableProbes(&on, true)
		rec.GateOn, rec.HasOn = kepErrors(validation.ValidatePodUpdate(pair.New.DeepCopy(), pair.Old.DeepCopy(), on)), true
	} else if requireOn {
		t.Fatal("PodValidationOptions has no field AllowMutableContainerProbes in the patched tree")
	}
	rec.GateOff = kepErrors(validation.ValidatePodUpdate(pair.New.DeepCopy(), pair.Old.DeepCopy(), off))
	createOpts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pair.Old.Spec, nil, &pair.Old.ObjectMeta, nil)
	// Ephemeral containers cannot be set on create, only added later.
	rec.OldValid = true
	for _, e := range validation.ValidatePodCreate(pair.Old.DeepCopy(), createOpts) {
		if e.Field != "spec.ephemeralContainers" || e.Type != field.ErrorTypeForbidden {
			rec.OldValid = false
		}
	}

	// The oracle of the metamorphic property.
	reset := pair.New.DeepCopy()
	resetProbes := func(c, old *core.Container) {
		if !kepProbesEqual(c, old) {
			rec.MutableProbesChanged = true
		}
		old = old.DeepCopy()
		c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = old.LivenessProbe, old.ReadinessProbe, old.StartupProbe
	}
	for i := range min(len(reset.Spec.Containers), len(pair.Old.Spec.Containers)) {
		resetProbes(&reset.Spec.Containers[i], &pair.Old.Spec.Containers[i])
	}
	for i := range min(len(reset.Spec.InitContainers), len(pair.Old.Spec.InitContainers)) {
		if kepRestartable(&pair.Old.Spec.InitContainers[i]) {
			resetProbes(&reset.Spec.InitContainers[i], &pair.Old.Spec.InitContainers[i])
		}
	}
	rec.Reset = kepErrors(validation.ValidatePodUpdate(reset, pair.Old.DeepCopy(), off))
	var probePaths []string
	for i := range pair.New.Spec.Containers {
		probePaths = append(probePaths, fmt.Sprintf("spec.containers[%d].", i))
	}
	for i, c := range pair.Old.Spec.InitContainers {
		if kepRestartable(&c) {
			probePaths = append(probePaths, fmt.Sprintf("spec.initContainers[%d].", i))
		}
	}
	for _, e := range validation.ValidatePodSpec(&pair.New.Spec, &pair.New.ObjectMeta, field.NewPath("spec"), off) {
		for _, p := range probePaths {
			rest, ok := strings.CutPrefix(e.Field, p)
			if ok && (strings.HasPrefix(rest, "livenessProbe") || strings.HasPrefix(rest, "readinessProbe") || strings.HasPrefix(rest, "startupProbe")) {
				rec.ProbeErrors = append(rec.ProbeErrors, kepErrors(field.ErrorList{e})...)
				break
			}
		}
	}
	_, mirror := pair.Old.Annotations[core.MirrorPodAnnotationKey]
	rec.ForbiddenState = pair.Old.DeletionTimestamp != nil || mirror ||
		pair.Old.Status.Phase == core.PodSucceeded || pair.Old.Status.Phase == core.PodFailed

	// Pod Security.
	newV1, oldV1 := kepV1(pair.New), kepV1(pair.Old)
	rec.Significant = podsecurityadmission.KEPIsSignificantPodUpdate(newV1, oldV1)
	rec.AnyProbeChanged = kepAnyProbeChanged(newV1, oldV1)
	rec.State, rec.ProbeChangedIn = pair.State, kepProbeChangedIn(pair)
	return rec
}

// kepProbeChangedIn lists the kinds of container (containers,
// restartableInitContainers, initContainers, ephemeralContainers) in which a
// container of the same name has other probes in the new Pod.
func kepProbeChangedIn(pair kepPair) []string {
	kinds := []string{}
	changed := func(kind string, olds, news []core.Container, counts func(*core.Container) bool) {
		for i := range news {
			for j := range olds {
				if news[i].Name == olds[j].Name && counts(&olds[j]) && !kepProbesEqual(&news[i], &olds[j]) {
					if !slices.Contains(kinds, kind) {
						kinds = append(kinds, kind)
					}
				}
			}
		}
	}
	all := func(*core.Container) bool { return true }
	changed("containers", pair.Old.Spec.Containers, pair.New.Spec.Containers, all)
	changed("restartableInitContainers", pair.Old.Spec.InitContainers, pair.New.Spec.InitContainers, kepRestartable)
	changed("initContainers", pair.Old.Spec.InitContainers, pair.New.Spec.InitContainers,
		func(c *core.Container) bool { return !kepRestartable(c) })
	ephemeral := func(ecs []core.EphemeralContainer) []core.Container {
		var out []core.Container
		for _, ec := range ecs {
			out = append(out, core.Container(ec.EphemeralContainerCommon))
		}
		return out
	}
	changed("ephemeralContainers", ephemeral(pair.Old.Spec.EphemeralContainers), ephemeral(pair.New.Spec.EphemeralContainers), all)
	return kinds
}

// kepAnyProbeChanged: a probe differs on a container that
// isSignificantPodUpdate compares (same index for regular and init
// containers, same name for ephemeral containers).
func kepAnyProbeChanged(pod, old *corev1.Pod) bool {
	changed := func(a, b *corev1.Container) bool {
		return !apiequality.Semantic.DeepEqual(a.LivenessProbe, b.LivenessProbe) ||
			!apiequality.Semantic.DeepEqual(a.ReadinessProbe, b.ReadinessProbe) ||
			!apiequality.Semantic.DeepEqual(a.StartupProbe, b.StartupProbe)
	}
	for i := range min(len(pod.Spec.Containers), len(old.Spec.Containers)) {
		if changed(&pod.Spec.Containers[i], &old.Spec.Containers[i]) {
			return true
		}
	}
	for i := range min(len(pod.Spec.InitContainers), len(old.Spec.InitContainers)) {
		if changed(&pod.Spec.InitContainers[i], &old.Spec.InitContainers[i]) {
			return true
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		for j := range old.Spec.EphemeralContainers {
			if pod.Spec.EphemeralContainers[i].Name == old.Spec.EphemeralContainers[j].Name {
				if changed((*corev1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon),
					(*corev1.Container)(&old.Spec.EphemeralContainers[j].EphemeralContainerCommon)) {
					return true
				}
				break
			}
		}
	}
	return false
}

func kepEnvInt(t *testing.T, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// TestKEPDifferential writes one kepdiff.Record per pair to HARNESS_DIFF_OUT.
// KEP_DIFF_SEED and KEP_DIFF_PAIRS choose the corpus; HARNESS_DIFF_TREE is
// "patched" or "base". With HARNESS_DIFF_DUMP=i,j,... it writes those pairs as a
// reproducer instead.
func TestKEPDifferential(t *testing.T) {
	out := os.Getenv("HARNESS_DIFF_OUT")
	if out == "" {
		t.Skip("HARNESS_DIFF_OUT is not set; run make test-differential")
	}
	tree := os.Getenv("HARNESS_DIFF_TREE")
	if tree != "patched" && tree != "base" {
		t.Fatalf("HARNESS_DIFF_TREE=%q, want patched or base", tree)
	}
	seed := kepEnvInt(t, "KEP_DIFF_SEED", 1)
	n := int(kepEnvInt(t, "KEP_DIFF_PAIRS", 30000))
	g := newKEPGen(seed)

	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}()
	w := bufio.NewWriter(f)
	defer func() {
		if err := w.Flush(); err != nil {
			t.Error(err)
		}
	}()

	if dump := os.Getenv("HARNESS_DIFF_DUMP"); dump != "" {
		for _, s := range strings.Split(dump, ",") {
			i, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("HARNESS_DIFF_DUMP: %v", err)
			}
			kepDump(t, w, i, g.pair(i))
		}
		return
	}

	enc := json.NewEncoder(w)
	for i := range n {
		pair := g.pair(i)
		if err := enc.Encode(kepEvaluate(t, i, pair, tree == "patched")); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s tree: %d pairs (seed %d, %d systematic)", tree, n, seed, kepSystematicCount())
}

// kepDump writes pair i as a reproducer: the old Pod as v1 YAML and the
// change to the new Pod.
func kepDump(t *testing.T, w *bufio.Writer, i int, pair kepPair) {
	oldV1, newV1 := kepV1(pair.Old), kepV1(pair.New)
	oldV1.APIVersion, oldV1.Kind = "v1", "Pod"
	newV1.APIVersion, newV1.Kind = "v1", "Pod"
	oldYAML, err := yaml.Marshal(oldV1)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "--- pair %d: %s\n# old Pod:\n%s# new Pod = old Pod with (-old +new):\n%s\n", i, pair.Desc, oldYAML, cmp.Diff(oldV1, newV1))
}
