package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// targets are the Pods that a command works on, in order, each once.
type targets struct {
	pods []*v1.Pod
	// workloads names the workloads that the command line named, such as
	// deployment.apps/web, whose Pods are among pods.
	workloads []string
}

// resolveTargets reads the Pods that the arguments and the label selector
// name, in namespace. An argument is a Pod's name, TYPE/NAME of a Pod or
// of a workload (Deployment, StatefulSet, DaemonSet, ReplicaSet or Job),
// which stands for the Pods that the workload controls now. A selector
// selects Pods.
func resolveTargets(ctx context.Context, getter genericclioptions.RESTClientGetter, client kubernetes.Interface, namespace string, args []string, selector string) (*targets, error) {
	b := resource.NewBuilder(getter).
		WithScheme(scheme.Scheme, scheme.Scheme.PrioritizedVersionsAllGroups()...).
		NamespaceParam(namespace).DefaultNamespace().
		Flatten()
	switch {
	case len(args) > 0 && selector != "":
		return nil, errors.New("name Pods and workloads, or select Pods with -l, not both")
	case len(args) > 0:
		b = b.ResourceNames("pods", args...)
	case selector != "":
		b = b.ResourceTypes("pods").LabelSelectorParam(selector)
	default:
		return nil, errors.New("name a Pod, a workload (deployment/NAME, statefulset/NAME, daemonset/NAME, replicaset/NAME, job/NAME), or select Pods with -l")
	}
	infos, err := b.Do().Infos()
	if err != nil {
		return nil, err
	}
	t := &targets{}
	seen := map[types.UID]bool{}
	add := func(pods ...*v1.Pod) {
		for _, pod := range pods {
			if !seen[pod.UID] {
				seen[pod.UID] = true
				t.pods = append(t.pods, pod)
			}
		}
	}
	for _, info := range infos {
		if pod, ok := info.Object.(*v1.Pod); ok {
			add(pod)
			continue
		}
		name := strings.ToLower(info.Mapping.GroupVersionKind.GroupKind().String()) + "/" + info.Name
		pods, err := workloadPods(ctx, client, info.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(pods) == 0 {
			return nil, fmt.Errorf("%s has no Pods", name)
		}
		t.workloads = append(t.workloads, name)
		add(pods...)
	}
	if len(t.pods) == 0 {
		return nil, fmt.Errorf("no Pods in namespace %q match -l %s", namespace, selector)
	}
	return t, nil
}

// workloadPods returns the Pods that a workload controls now, sorted by
// name: the Pods that its selector selects and whose controller it is (for
// a Deployment, one of its ReplicaSets).
func workloadPods(ctx context.Context, client kubernetes.Interface, obj runtime.Object) ([]*v1.Pod, error) {
	var (
		meta     metav1.ObjectMeta
		selector *metav1.LabelSelector
	)
	switch w := obj.(type) {
	case *appsv1.Deployment:
		return deploymentPods(ctx, client, w)
	case *appsv1.ReplicaSet:
		meta, selector = w.ObjectMeta, w.Spec.Selector
	case *appsv1.StatefulSet:
		meta, selector = w.ObjectMeta, w.Spec.Selector
	case *appsv1.DaemonSet:
		meta, selector = w.ObjectMeta, w.Spec.Selector
	case *batchv1.Job:
		meta, selector = w.ObjectMeta, w.Spec.Selector
	default:
		return nil, errors.New("not a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet or Job, whose Pods' probes could change")
	}
	return controlledPods(ctx, client, meta.Namespace, selector, meta.UID)
}

// deploymentPods returns the Pods of the Deployment's ReplicaSets.
func deploymentPods(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment) ([]*v1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	list, err := client.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var owners []types.UID
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == d.UID {
			owners = append(owners, list.Items[i].UID)
		}
	}
	return controlledPods(ctx, client, d.Namespace, d.Spec.Selector, owners...)
}

// controlledPods lists the Pods in namespace that the selector selects and
// one of owners controls.
func controlledPods(ctx context.Context, client kubernetes.Interface, namespace string, selector *metav1.LabelSelector, owners ...types.UID) ([]*v1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, err
	}
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var pods []*v1.Pod
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && slices.Contains(owners, ref.UID) {
			pods = append(pods, &list.Items[i])
		}
	}
	slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods, nil
}
