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

// Command images prints the names that the tree's e2e specs give the images
// make test-upstream-e2e builds, one "key name" per line, so the images are
// tagged exactly as test/utils/image/manifest.go says.
package main

import (
	"fmt"

	imageutils "k8s.io/kubernetes/test/utils/image"
)

func main() {
	fmt.Println("agnhost", imageutils.GetE2EImage(imageutils.Agnhost))
	fmt.Println("busybox", imageutils.GetE2EImage(imageutils.BusyBox))
	fmt.Println("pause", imageutils.GetPauseImageName())
}
