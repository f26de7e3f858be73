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

// This file is not part of Kubernetes: the KEP-6318 project adds it to
// k8s.io/pod-security-admission/admission with go test -overlay, in the
// patched and in the base tree, so that its differential test can call the
// unexported isSignificantPodUpdate of each.

package admission

import corev1 "k8s.io/api/core/v1"

// KEPIsSignificantPodUpdate is isSignificantPodUpdate.
func KEPIsSignificantPodUpdate(pod, oldPod *corev1.Pod) bool {
	return isSignificantPodUpdate(pod, oldPod)
}
