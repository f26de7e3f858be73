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

// Package record is what the differential test writes about each (old Pod,
// new Pod) pair: the one definition that both sides use. make
// test-differential compiles this file into the patched and the base tree,
// as pkg/apis/core/validation/internal/kepdiff (go test -overlay), where
// test/sidebyside/testdata/validation_differential_test.go writes the
// records; internal/differential reads and compares them. It imports only
// the standard library, so that it compiles in both.
package record

// Error is a field.Error as the trees print it.
type Error struct {
	Type     string `json:"type"`
	Field    string `json:"field"`
	Detail   string `json:"detail"`
	BadValue string `json:"badValue"`
}

// Record is what one tree says about one pair. The comparer takes the
// results from the patched tree and the oracle from the base tree.
type Record struct {
	I    int    `json:"i"`
	Hash string `json:"hash"`
	Desc string `json:"desc"`
	// OldValid: the old Pod passes ValidatePodCreate, but for its ephemeral
	// containers (a corpus statistic).
	OldValid bool `json:"oldValid"`
	// GateOff is ValidatePodUpdate with AllowMutableContainerProbes false.
	GateOff []Error `json:"gateOff"`
	// GateOn is ValidatePodUpdate with AllowMutableContainerProbes true; only
	// the patched tree has the option, and HasOn says it evaluated it.
	GateOn []Error `json:"gateOn,omitempty"`
	HasOn  bool    `json:"hasOn"`
	// Reset is ValidatePodUpdate (option off) of the pair whose new Pod has
	// the probes of the old one, on regular and restartable init containers.
	Reset []Error `json:"reset"`
	// ProbeErrors are the spec validation errors of the new Pod at the
	// probes of regular and restartable init containers.
	ProbeErrors []Error `json:"probeErrors"`
	// MutableProbesChanged: a probe of a regular or restartable init
	// container differs; ForbiddenState: the old Pod is terminating,
	// terminal or a mirror Pod.
	MutableProbesChanged bool `json:"mutableProbesChanged"`
	ForbiddenState       bool `json:"forbiddenState"`
	// Significant is Pod Security's isSignificantPodUpdate(new, old);
	// AnyProbeChanged: a probe of any container (regular, init, ephemeral)
	// differs, where isSignificantPodUpdate compares containers.
	Significant     bool `json:"significant"`
	AnyProbeChanged bool `json:"anyProbeChanged"`
	// State is what the old Pod is (States); ProbeChangedIn the kinds of
	// container whose probes changed (ContainerKinds).
	State          string   `json:"state"`
	ProbeChangedIn []string `json:"probeChangedIn"`
}

// States and ContainerKinds are the values of Record.State and
// Record.ProbeChangedIn, each of which the corpus must cover.
var (
	States         = []string{"running", "pending", "terminating", "succeeded", "failed", "mirror"}
	ContainerKinds = []string{"containers", "restartableInitContainers", "initContainers", "ephemeralContainers"}
)
