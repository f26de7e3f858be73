package probeplugin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// owners walks owner references generically, through the dynamic client:
// from a Pod to its controller, to that one's controller, and so on up to
// the top one, whatever their kinds (a Deployment through its ReplicaSet,
// an Argo Rollout through its ReplicaSet, a custom controller's object).
// It reads each controller once.
type owners struct {
	dynamic dynamic.Interface
	mapper  meta.RESTMapper

	mu sync.Mutex
	// read holds the controllers read, by UID; nil for one that is gone.
	read map[types.UID]*unstructured.Unstructured
}

// maxOwners is the longest chain of controllers that owners walks: a loop
// of owner references must not walk forever.
const maxOwners = 10

func newOwners(dynamic dynamic.Interface, mapper meta.RESTMapper) *owners {
	return &owners{dynamic: dynamic, mapper: mapper, read: map[types.UID]*unstructured.Unstructured{}}
}

// know remembers an object read otherwise, such as a workload that the
// command line names, which is not read again.
func (o *owners) know(obj *unstructured.Unstructured) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.read[obj.GetUID()] = obj
}

// ownerUnreadError says that a controller of an object, which its owner
// reference names, cannot be read: the user may not read its kind
// (Forbidden), the API server does not serve its kind, or the read failed.
type ownerUnreadError struct {
	// uid and name are the controller's, as the reference names it:
	// deployment.apps/web.
	uid  types.UID
	name string
	err  error
}

func (e *ownerUnreadError) Error() string { return e.name + ": " + e.err.Error() }

func (e *ownerUnreadError) Unwrap() error { return e.err }

// controller returns the controller of obj, or nil when it has none, or
// when its controller is gone or was replaced by another object of its
// name. A controller that cannot be read is an ownerUnreadError.
func (o *owners) controller(ctx context.Context, obj metav1.Object) (*unstructured.Unstructured, error) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil {
		return nil, nil
	}
	o.mu.Lock()
	c, ok := o.read[ref.UID]
	o.mu.Unlock()
	if ok {
		return c, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, &ownerUnreadError{uid: ref.UID, name: strings.ToLower(ref.Kind) + "/" + ref.Name, err: fmt.Errorf("its owner reference: %w", err)}
	}
	name := objectName(gv.WithKind(ref.Kind).GroupKind(), ref.Name)
	c, err = o.get(ctx, gv.WithKind(ref.Kind), obj.GetNamespace(), ref.Name)
	switch {
	case apierrors.IsNotFound(err), err == nil && c.GetUID() != ref.UID:
		c, err = nil, nil
	case err != nil:
		return nil, &ownerUnreadError{uid: ref.UID, name: name, err: err}
	}
	o.mu.Lock()
	o.read[ref.UID] = c
	o.mu.Unlock()
	return c, nil
}

// get reads the object of the kind and name, in namespace when its kind
// is namespaced, through the dynamic client.
func (o *owners) get(ctx context.Context, kind schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	mapping, err := o.mapper.RESTMapping(kind.GroupKind(), kind.Version)
	if err != nil {
		return nil, err
	}
	var client dynamic.ResourceInterface = o.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = o.dynamic.Resource(mapping.Resource).Namespace(namespace)
	}
	return client.Get(ctx, name, metav1.GetOptions{})
}

// again reads a workload again, as it is now, as controller reads a
// controller; nil when it is gone, or was replaced by another object of
// its name. What the owners read before stays as it was: the run's end
// looks at the workloads as the run began (templatePatch).
func (o *owners) again(ctx context.Context, workload *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	now, err := o.get(ctx, workload.GroupVersionKind(), workload.GetNamespace(), workload.GetName())
	switch {
	case apierrors.IsNotFound(err), err == nil && now.GetUID() != workload.GetUID():
		return nil, nil
	case err != nil:
		return nil, err
	}
	return now, nil
}

// chain returns the controllers of obj, its own first and the top one
// last; none for an object without a controller.
func (o *owners) chain(ctx context.Context, obj metav1.Object) ([]*unstructured.Unstructured, error) {
	var chain []*unstructured.Unstructured
	for range maxOwners {
		c, err := o.controller(ctx, obj)
		if err != nil || c == nil {
			return chain, err
		}
		chain = append(chain, c)
		obj = c
	}
	return chain, nil
}

// belonging are Pods of one workload, or, with workload nil, of none, or of
// one that cannot be read (unread).
type belonging struct {
	workload *unstructured.Unstructured
	pods     []*v1.Pod
	// inner are the workloads between the Pods and the top one that have
	// a limit of their own (workloadLimit), which holds too: a Deployment
	// that a custom resource controls, say.
	inner []*unstructured.Unstructured
	// unread is the controller of the Pods that cannot be read, for a
	// group without a workload; nil for the Pods of none.
	unread *ownerUnreadError
}

// workloadsOf returns the workloads whose Pods a run counts: the top
// controller of each of pods, with the pods that it controls, in their
// order, and the workloads under it that have a limit of their own. A Pod
// counts once, under its top workload, whatever named it: itself, a
// workload that the top one controls (a Deployment's ReplicaSet, a
// CronJob's Job), or the top one; so that it keeps to the top one's limit,
// as the workload's own rollout does, and to the limits of those under it.
// The Pods whose controllers cannot be read come next, grouped by the
// first one that cannot (unread), and the Pods without a controller last.
func (o *owners) workloadsOf(ctx context.Context, pods []*v1.Pod) []belonging {
	var (
		groups []belonging
		of     = map[types.UID]int{}
		alone  belonging
	)
	group := func(uid types.UID, b belonging) *belonging {
		i, ok := of[uid]
		if !ok {
			i = len(groups)
			of[uid] = i
			groups = append(groups, b)
		}
		return &groups[i]
	}
	for _, pod := range pods {
		chain, err := o.chain(ctx, pod)
		var unread *ownerUnreadError
		switch {
		case errors.As(err, &unread):
			g := group(unread.uid, belonging{unread: unread})
			g.pods = append(g.pods, pod)
		case err != nil || len(chain) == 0:
			alone.pods = append(alone.pods, pod)
		default:
			top := chain[len(chain)-1]
			g := group(top.GetUID(), belonging{workload: top})
			g.pods = append(g.pods, pod)
			for _, c := range chain[:len(chain)-1] {
				if workloadLimit(nameOf(c), c) != nil && !slices.ContainsFunc(g.inner, func(w *unstructured.Unstructured) bool { return w.GetUID() == c.GetUID() }) {
					g.inner = append(g.inner, c)
				}
			}
		}
	}
	// Those that cannot be read after those that can.
	slices.SortStableFunc(groups, func(a, b belonging) int {
		return cmp.Compare(btoi(a.unread != nil), btoi(b.unread != nil))
	})
	if len(alone.pods) > 0 {
		groups = append(groups, alone)
	}
	return groups
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// podsOf returns the Pods that the workload controls now, through any
// chain of controllers, sorted by name: of the Pods that its
// spec.selector selects, or, for a CronJob, which has none, of the Pods
// of its Jobs, each of which selects its own; or of every Pod of its
// namespace when it has none. A Pod whose controllers cannot be read, as
// far as the workload, is left out, and unread says so: the Pods that
// podsOf returns are then not all the workload's, and its limit is not
// known (see workloadFloor).
func (o *owners) podsOf(ctx context.Context, client kubernetes.Interface, workload *unstructured.Unstructured) (pods []*v1.Pod, unread error, err error) {
	if workload.GroupVersionKind().GroupKind() == batchv1.SchemeGroupVersion.WithKind("CronJob").GroupKind() {
		pods, err = cronJobPods(ctx, client, workload)
		return pods, nil, err
	}
	selector := labels.Everything()
	if s, ok, _ := unstructured.NestedMap(workload.Object, "spec", "selector"); ok {
		var ls metav1.LabelSelector
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(s, &ls); err == nil {
			if sel, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
				selector = sel
			}
		}
	}
	list, err := client.CoreV1().Pods(workload.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, nil, err
	}
	for i := range list.Items {
		chain, chainErr := o.chain(ctx, &list.Items[i])
		switch {
		case slices.ContainsFunc(chain, func(c *unstructured.Unstructured) bool { return c.GetUID() == workload.GetUID() }):
			pods = append(pods, &list.Items[i])
		case chainErr != nil && unread == nil:
			// The controllers read before the one that cannot be did not
			// lead to the workload: the Pod may be its, or not.
			unread = fmt.Errorf("pod/%s: %w", list.Items[i].Name, chainErr)
		}
	}
	slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods, unread, nil
}

// cronJobPods returns the Pods of the CronJob's Jobs, sorted by name: the
// Jobs that it controls, and, of each, the Pods that the Job's selector
// selects and that it controls. It lists the namespace's Jobs, not its
// Pods, and each Job's Pods.
func cronJobPods(ctx context.Context, client kubernetes.Interface, cronJob *unstructured.Unstructured) ([]*v1.Pod, error) {
	jobs, err := client.BatchV1().Jobs(cronJob.GetNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing its Jobs: %w", err)
	}
	var pods []*v1.Pod
	for i := range jobs.Items {
		job := &jobs.Items[i]
		if ref := metav1.GetControllerOf(job); ref == nil || ref.UID != cronJob.GetUID() || job.Spec.Selector == nil {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
		if err != nil {
			continue
		}
		list, err := client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return nil, fmt.Errorf("listing the Pods of job.batch/%s: %w", job.Name, err)
		}
		for j := range list.Items {
			if ref := metav1.GetControllerOf(&list.Items[j]); ref != nil && ref.UID == job.UID {
				pods = append(pods, &list.Items[j])
			}
		}
	}
	slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods, nil
}

// objectName names an object as kubectl does: deployment.apps/web, or
// pod/web for the core group.
func objectName(gk schema.GroupKind, name string) string {
	return strings.ToLower(gk.String()) + "/" + name
}

// nameOf names an object read through the dynamic client.
func nameOf(obj *unstructured.Unstructured) string {
	return objectName(obj.GroupVersionKind().GroupKind(), obj.GetName())
}
