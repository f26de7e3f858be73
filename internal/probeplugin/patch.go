package probeplugin

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// podPatch returns the strategic merge patch that turns original into
// modified, or nil when they do not differ. The patch carries original's
// resourceVersion, so the API server applies it only to that version of the
// Pod and answers 409 Conflict if the Pod changed since it was read. Only
// the fields that differ are in the patch: fields of the Pod that this
// client does not know are never sent.
func podPatch(original, modified *v1.Pod) ([]byte, error) {
	from, err := json.Marshal(original)
	if err != nil {
		return nil, err
	}
	to, err := json.Marshal(modified)
	if err != nil {
		return nil, err
	}
	if len(modified.Annotations) == 0 && len(original.Annotations) > 0 {
		// JSON leaves out an empty map, and the patch would then remove
		// the annotations as a whole; an empty map makes it name each
		// annotation it removes.
		var pod map[string]any
		if err := json.Unmarshal(to, &pod); err != nil {
			return nil, err
		}
		pod["metadata"].(map[string]any)["annotations"] = map[string]any{}
		if to, err = json.Marshal(pod); err != nil {
			return nil, err
		}
	}
	diff, err := strategicpatch.CreateTwoWayMergePatch(from, to, &v1.Pod{})
	if err != nil {
		return nil, err
	}
	var patch map[string]any
	if err := json.Unmarshal(diff, &patch); err != nil {
		return nil, err
	}
	if len(patch) == 0 {
		return nil, nil
	}
	metadata, _ := patch["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
		patch["metadata"] = metadata
	}
	metadata["resourceVersion"] = original.ResourceVersion
	return json.Marshal(patch)
}

// dryRun is the --dry-run flag.
type dryRun string

const (
	dryRunNone   dryRun = "none"
	dryRunClient dryRun = "client"
	dryRunServer dryRun = "server"
)

// patcher applies a change to Pods.
type patcher struct {
	client    kubernetes.Interface
	change    change
	container string // -c; empty chooses as chooseContainer does
	dryRun    dryRun
}

// apply makes the change to the Pod and returns the Pod as stored (for a
// client dry run, as it would be stored) and whether it changed. pod is
// the Pod as last read. On a conflict it reads the Pod again and applies
// the change to what it reads, so a concurrent edit of the Pod is kept,
// and one made after the change was computed is never overwritten.
func (p *patcher) apply(ctx context.Context, pod *v1.Pod) (*v1.Pod, bool, error) {
	var (
		result  *v1.Pod
		changed bool
	)
	attempt := 0
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		attempt++
		if attempt > 1 {
			var err error
			if pod, err = p.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		modified := pod.DeepCopy()
		c, err := chooseContainer(modified, p.container)
		if err != nil {
			return err
		}
		if err := p.change.apply(modified, c); err != nil {
			return err
		}
		patch, err := podPatch(pod, modified)
		if err != nil {
			return err
		}
		if patch == nil {
			result, changed = pod, false
			return nil
		}
		if p.dryRun == dryRunClient {
			result, changed = modified, true
			return nil
		}
		opts := metav1.PatchOptions{}
		if p.dryRun == dryRunServer {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		result, err = p.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, opts)
		changed = err == nil
		return err
	})
	if apierrors.IsConflict(err) {
		err = fmt.Errorf("the Pod kept changing while it was patched, %d attempts: %w", attempt, err)
	}
	return result, changed, err
}
