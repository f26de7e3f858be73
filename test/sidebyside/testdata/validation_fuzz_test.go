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
// pkg/apis/core/validation of the patched tree with go test -overlay
// (make test-fuzz).

package validation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
)

// kepFuzzSeeds adds the committed regression inputs of the project: the
// files of HARNESS_FUZZ_CORPUS, in the "go test fuzz v1" format that go test
// writes for a failing input.
func kepFuzzSeeds(f *testing.F) {
	dir := os.Getenv("HARNESS_FUZZ_CORPUS")
	if dir == "" {
		return
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 5 || lines[0] != "go test fuzz v1" {
			f.Fatalf("%s: not a go test fuzz v1 file with 4 values", file)
		}
		var seed int64
		var template, state uint8
		var steps []byte
		for i, line := range lines[1:] {
			typ, val, ok := strings.Cut(line, "(")
			val, ok2 := strings.CutSuffix(val, ")")
			if !ok || !ok2 {
				f.Fatalf("%s: line %q", file, line)
			}
			switch {
			case i == 0 && typ == "int64":
				seed, err = strconv.ParseInt(val, 0, 64)
			case (i == 1 || i == 2) && typ == "byte", (i == 1 || i == 2) && typ == "uint8":
				// go test writes a uint8 as byte('\x03').
				var v uint64
				if strings.HasPrefix(val, "'") {
					var r string
					if r, err = strconv.Unquote(val); err == nil {
						v = uint64([]rune(r)[0])
					}
				} else {
					v, err = strconv.ParseUint(val, 0, 8)
				}
				if i == 1 {
					template = uint8(v)
				} else {
					state = uint8(v)
				}
			case i == 3 && typ == "[]byte":
				var s string
				s, err = strconv.Unquote(val)
				steps = []byte(s)
			default:
				err = fmt.Errorf("unexpected %s", typ)
			}
			if err != nil {
				f.Fatalf("%s: line %q: %v", file, line, err)
			}
		}
		f.Add(seed, template, state, steps)
	}
}

// FuzzKEPValidatePodUpdate runs ValidatePodUpdate with
// AllowMutableContainerProbes on, and off, on pairs made by the corpus
// generator from the fuzzed input: a template or fuzzed Pod, a state, and a
// sequence of steps, two bytes each (mutation, container). It checks that
// validation does not panic and does not change its arguments.
func FuzzKEPValidatePodUpdate(f *testing.F) {
	for i := range 8 {
		f.Add(int64(i), uint8(i), uint8(i), []byte{byte(3 * i), 0, byte(40 + i), 1})
	}
	f.Add(int64(100), uint8(1), uint8(1), []byte{6, 1, 60, 1})   // terminating, probe and other change
	f.Add(int64(101), uint8(2), uint8(5), []byte{12, 2, 100, 3}) // mirror
	kepFuzzSeeds(f)

	var lock sync.Mutex
	g := newKEPGen(1)
	f.Fuzz(func(t *testing.T, seed int64, template, state uint8, steps []byte) {
		if len(steps) > 16 {
			steps = steps[:16]
		}
		lock.Lock()
		g.reseed(seed)
		var pod *core.Pod
		desc := "fuzzed"
		if k := int(template) % (len(kepTemplates) + 1); k < len(kepTemplates) {
			pod, desc = kepTemplates[k](), fmt.Sprintf("template=%d", k)
		} else {
			pod = g.fuzzedPod()
		}
		var ns, refs []int
		for k := 0; k+1 < len(steps); k += 2 {
			ns, refs = append(ns, int(steps[k])), append(refs, int(steps[k+1]))
		}
		pair := g.newPair(desc, pod, int(state), ns, refs)
		lock.Unlock()

		oldCopy, newCopy := pair.Old.DeepCopy(), pair.New.DeepCopy()
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&pair.New.Spec, &pair.Old.Spec, &pair.New.ObjectMeta, &pair.Old.ObjectMeta)
		for _, on := range []bool{true, false} {
			if !kepSetMutableProbes(&opts, on) {
				t.Fatal("PodValidationOptions has no field AllowMutableContainerProbes")
			}
			errs := validation.ValidatePodUpdate(pair.New, pair.Old, opts)
			if !apiequality.Semantic.DeepEqual(pair.Old, oldCopy) {
				t.Fatalf("%s: ValidatePodUpdate (probes mutable: %v) changed the old Pod (-before +after):\n%s", pair.Desc, on, cmp.Diff(oldCopy, pair.Old))
			}
			if !apiequality.Semantic.DeepEqual(pair.New, newCopy) {
				t.Fatalf("%s: ValidatePodUpdate (probes mutable: %v) changed the new Pod (-before +after):\n%s", pair.Desc, on, cmp.Diff(newCopy, pair.New))
			}
			for _, e := range errs {
				if e.Field == "" || e.Type == "" {
					t.Fatalf("%s: error without a field path or type: %v", pair.Desc, e)
				}
			}
		}
	})
}
