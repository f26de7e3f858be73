package probeplugin

import (
	"context"
	"encoding/json"
	"errors"
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
// modified, or nil when they do not differ. With precondition set, the
// patch carries original's resourceVersion, so the API server applies it
// only to that version of that Pod, and answers 409 Conflict if the Pod
// changed since it was read; no other Pod, a Pod recreated under the same
// name included, can have that resourceVersion. Only the fields that
// differ are in the patch: fields of the Pod that this client does not
// know are never sent.
func podPatch(original, modified *v1.Pod, precondition bool) ([]byte, error) {
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
	if precondition {
		metadata, _ := patch["metadata"].(map[string]any)
		if metadata == nil {
			metadata = map[string]any{}
			patch["metadata"] = metadata
		}
		metadata["resourceVersion"] = original.ResourceVersion
	}
	return json.Marshal(patch)
}

// podGoneError says that a Pod was deleted, or replaced by another Pod of
// the same name, while kubectl probe worked on it.
type podGoneError struct {
	reason string
}

func (e *podGoneError) Error() string { return e.reason }

// patcher sends changes of Pods.
type patcher struct {
	client       kubernetes.Interface
	fieldManager string
}

// patched is what patcher.apply did to a Pod.
type patched struct {
	// read is the Pod as last read, the one the change was made to.
	read *v1.Pod
	// stored is the Pod as stored, or as the server would store it; read
	// when the Pod was as asked already.
	stored  *v1.Pod
	changed bool
}

// apply makes the change to the Pod's container and sends it, as a server
// dry run if dryRun is set. pod is the Pod as last read.
//
// On a conflict it reads the Pod again, checks that it is the same Pod
// (its UID), and applies the change to what it read: a concurrent edit of
// the Pod is kept, and a Pod deleted or recreated under the same name is
// never patched: that is a podGoneError. On an error that does not say
// that the API server refused the patch (a timeout, a lost connection, a
// server error), it reads the Pod again too: the server may have stored
// it, and the Pod then carries the record as the patch left it (see
// storedDespite).
func (p *patcher) apply(ctx context.Context, pod *v1.Pod, container string, ch change, template *podTemplate, dryRun bool) (patched, error) {
	var result patched
	pods := p.client.CoreV1().Pods(pod.Namespace)
	attempt := 0
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		attempt++
		if attempt > 1 {
			again, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if again.UID != pod.UID {
				return &podGoneError{reason: "recreated: another Pod has its name now"}
			}
			pod = again
		}
		result = patched{read: pod, stored: pod}
		modified, _, err := modify(pod, container, ch, template)
		if err != nil {
			return err
		}
		patch, err := podPatch(pod, modified, true)
		if err != nil || patch == nil {
			return err
		}
		opts := metav1.PatchOptions{FieldManager: p.fieldManager}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		stored, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, opts)
		if err != nil && !dryRun && !refused(err) {
			stored, err = p.storedDespite(ctx, pod, modified, err)
		}
		if err != nil {
			return err
		}
		result.stored, result.changed = stored, true
		return nil
	})
	var gone *podGoneError
	switch {
	case errors.As(err, &gone):
	case apierrors.IsNotFound(err):
		err = &podGoneError{reason: "deleted"}
	case apierrors.IsConflict(err):
		err = fmt.Errorf("the Pod kept changing while it was patched, %d attempts: %w", attempt, err)
	}
	return result, err
}

// refused says whether the error of a request proves that the API server
// did not store it: an answer of 4xx, such as 409 Conflict. Any other error
// may come after the server stored it.
func refused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500
}

// storedDespite reads the Pod again after its patch failed with err, which
// does not prove that the patch was refused, and returns the Pod when the
// patch was stored: it carries the record of a run (lastRunAnnotation) as
// modified, the Pod as patched, has it, or none when modified has none, as
// after the put-back of a Pod's first run, and it did not before. A Pod
// deleted or recreated meanwhile is a podGoneError. When the Pod cannot be
// read again, whether the patch was stored is unknown: an
// outcomeUnknownError. Otherwise, and for a patch that leaves the record as
// it was, it returns err.
func (p *patcher) storedDespite(ctx context.Context, pod, modified *v1.Pod, err error) (*v1.Pod, error) {
	if sameRecord(modified, pod) {
		return nil, err
	}
	now, getErr := p.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(getErr):
		return nil, &podGoneError{reason: "deleted"}
	case getErr != nil:
		return nil, &outcomeUnknownError{of: "the change", lost: err, unread: getErr}
	case now.UID != pod.UID:
		return nil, &podGoneError{reason: "recreated: another Pod has its name now"}
	case !sameRecord(now, modified):
		return nil, err
	}
	return now, nil
}

// sameRecord says whether two Pods carry the same record of a run
// (lastRunAnnotation), or both none.
func sameRecord(a, b *v1.Pod) bool {
	x, hasX := a.Annotations[lastRunAnnotation]
	y, hasY := b.Annotations[lastRunAnnotation]
	return x == y && hasX == hasY
}

// outcomeUnknownError says that the answer to a Pod's patch was lost, and
// that the Pod cannot be read again: the patch may have been stored. of
// names what the patch makes: the change, or, of --undo-on-failure, the
// put-back.
type outcomeUnknownError struct {
	of           string
	lost, unread error
}

func (e *outcomeUnknownError) Error() string {
	return fmt.Sprintf("whether %s was stored is unknown: the answer to its patch was lost (%v), and the Pod cannot be read again (%v)", e.of, e.lost, e.unread)
}
