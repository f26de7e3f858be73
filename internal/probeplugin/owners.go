package probeplugin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

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

// controller returns the controller of obj, or nil when it has none, or
// when its controller is gone or was replaced by another object of its
// name.
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
		return nil, fmt.Errorf("the owner reference to %s %s: %w", ref.Kind, ref.Name, err)
	}
	mapping, err := o.mapper.RESTMapping(gv.WithKind(ref.Kind).GroupKind(), gv.Version)
	if err != nil {
		return nil, err
	}
	var client dynamic.ResourceInterface = o.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = o.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	c, err = client.Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err), err == nil && c.GetUID() != ref.UID:
		c, err = nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", objectName(gv.WithKind(ref.Kind).GroupKind(), ref.Name), err)
	}
	o.mu.Lock()
	o.read[ref.UID] = c
	o.mu.Unlock()
	return c, nil
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

// belonging are Pods of one workload, or, with workload nil, of none.
type belonging struct {
	workload *unstructured.Unstructured
	pods     []*v1.Pod
}

// workloadsOf returns the workloads whose Pods a run counts, each Pod once:
// those named, and the top controllers of pods, with the Pods among pods
// that each controls, but for the Pods of those named, which count with
// them: Pods named or selected keep to the workloads they belong to, as
// those workloads named would. A workload that another of them controls,
// through any chain of controllers, is left out: its Pods count with that
// one, as a ReplicaSet named with its Deployment, or a Job with its
// CronJob. The Pods without one come last, and those whose controllers
// cannot be read with them: the error says which.
func (o *owners) workloadsOf(ctx context.Context, named []*unstructured.Unstructured, pods []*v1.Pod) ([]belonging, error) {
	var (
		groups []belonging
		of     = map[types.UID]int{}
		alone  belonging
		err    error
	)
	for _, w := range named {
		if _, ok := of[w.GetUID()]; !ok {
			of[w.GetUID()] = len(groups)
			groups = append(groups, belonging{workload: w})
		}
	}
	counted := func(c *unstructured.Unstructured) bool {
		_, ok := of[c.GetUID()]
		return ok
	}
	for _, pod := range pods {
		chain, chainErr := o.chain(ctx, pod)
		if chainErr != nil && err == nil {
			err = fmt.Errorf("pod/%s: %w", pod.Name, chainErr)
		}
		if chainErr != nil || len(chain) == 0 {
			alone.pods = append(alone.pods, pod)
			continue
		}
		top := chain[len(chain)-1]
		switch i, ok := of[top.GetUID()]; {
		case ok:
			groups[i].pods = append(groups[i].pods, pod)
		case slices.ContainsFunc(chain, counted):
			// A workload named between the Pod and its top controller
			// counts it already.
		default:
			of[top.GetUID()] = len(groups)
			groups = append(groups, belonging{workload: top, pods: []*v1.Pod{pod}})
		}
	}
	groups = slices.DeleteFunc(groups, func(g belonging) bool {
		chain, chainErr := o.chain(ctx, g.workload)
		if chainErr != nil && err == nil {
			err = fmt.Errorf("%s: %w", nameOf(g.workload), chainErr)
		}
		return slices.ContainsFunc(chain, counted)
	})
	if len(alone.pods) > 0 {
		groups = append(groups, alone)
	}
	return groups, err
}

// podsOf returns the Pods that the workload controls now, through any
// chain of controllers, sorted by name: of the Pods that its
// spec.selector selects, or of every Pod of its namespace when it has
// none.
func (o *owners) podsOf(ctx context.Context, client kubernetes.Interface, workload *unstructured.Unstructured) ([]*v1.Pod, error) {
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
		return nil, err
	}
	var pods []*v1.Pod
	for i := range list.Items {
		chain, err := o.chain(ctx, &list.Items[i])
		if err != nil {
			return nil, fmt.Errorf("pod/%s: %w", list.Items[i].Name, err)
		}
		if slices.ContainsFunc(chain, func(c *unstructured.Unstructured) bool { return c.GetUID() == workload.GetUID() }) {
			pods = append(pods, &list.Items[i])
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
