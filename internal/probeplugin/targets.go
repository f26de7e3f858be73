package probeplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes"
)

// workloadKind is a built-in kind of workload, whose Pods' templates
// kubectl probe knows how to find. Any other kind of object that controls
// Pods through owner references is a workload too (see owners), without
// that knowledge; workloadLimit knows the built-in kinds' limits.
type workloadKind struct {
	// arg is how a TARGET names it: deployment/NAME.
	arg string
	// template returns the Pod template of the revision that a Pod it
	// controls was created from, and that revision's name; nil for a kind
	// that controls no Pods itself (a Deployment does through ReplicaSets).
	template func(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, owner metav1.OwnerReference) (*v1.PodTemplateSpec, string, error)
}

// workloadKinds are the built-in kinds of workload, which shell completion
// offers, and the kinds of controller whose template a Pod's probes are
// compared with.
var workloadKinds = map[schema.GroupKind]workloadKind{
	{Group: "apps", Kind: "Deployment"}:  {arg: "deployment"},
	{Group: "apps", Kind: "ReplicaSet"}:  {arg: "replicaset", template: replicaSetTemplate},
	{Group: "apps", Kind: "StatefulSet"}: {arg: "statefulset", template: revisionTemplate},
	{Group: "apps", Kind: "DaemonSet"}:   {arg: "daemonset", template: revisionTemplate},
	{Group: "batch", Kind: "Job"}:        {arg: "job", template: jobTemplate},
}

// workloadArgs lists how TARGETs name the built-in workloads:
// deployment/NAME, ...
func workloadArgs() []string {
	var args []string
	for _, k := range workloadKinds {
		args = append(args, k.arg+"/NAME")
	}
	slices.Sort(args)
	return args
}

// replicaSetTemplate returns the template of the Pod's ReplicaSet: a
// ReplicaSet's Pods are all of its one revision, which the label
// pod-template-hash names for a Deployment's.
func replicaSetTemplate(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, owner metav1.OwnerReference) (*v1.PodTemplateSpec, string, error) {
	rs, err := client.AppsV1().ReplicaSets(pod.Namespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		return nil, "", err
	}
	if rs.UID != owner.UID {
		return nil, "", fmt.Errorf("replicaset.apps/%s is not the one that created the Pod", owner.Name)
	}
	hash := appsv1.DefaultDeploymentUniqueLabelKey
	if pod.Labels[hash] != rs.Spec.Template.Labels[hash] {
		return nil, "", fmt.Errorf("the template of replicaset.apps/%s changed since it created the Pod (%s %q, the Pod's %q)", owner.Name, hash, rs.Spec.Template.Labels[hash], pod.Labels[hash])
	}
	return &rs.Spec.Template, "", nil
}

// revisionTemplate returns the template of the StatefulSet's or
// DaemonSet's revision that created the Pod: the ControllerRevision that
// the Pod's label controller-revision-hash names, not the workload's
// current template, which a Pod under the OnDelete strategy may not have.
func revisionTemplate(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, owner metav1.OwnerReference) (*v1.PodTemplateSpec, string, error) {
	// A StatefulSet's Pods carry the revision's name, a DaemonSet's its
	// hash, which the revision's name ends in.
	label := pod.Labels[appsv1.ControllerRevisionHashLabelKey]
	if label == "" {
		return nil, "", fmt.Errorf("the Pod has no label %s naming its revision", appsv1.ControllerRevisionHashLabelKey)
	}
	name := label
	if !strings.HasPrefix(label, owner.Name+"-") {
		name = owner.Name + "-" + label
	}
	revision, err := client.AppsV1().ControllerRevisions(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, "", err
	}
	if ref := metav1.GetControllerOf(revision); ref == nil || ref.UID != owner.UID {
		return nil, "", fmt.Errorf("controllerrevision.apps/%s is not %s's", name, owner.Name)
	}
	// The revision holds the template as a patch that replaces the
	// workload's template as a whole.
	var data struct {
		Spec struct {
			Template v1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(revision.Data.Raw, &data); err != nil {
		return nil, "", fmt.Errorf("controllerrevision.apps/%s: %w", name, err)
	}
	return &data.Spec.Template, "revision " + name, nil
}

// jobTemplate returns the Job's template, which its Pods are all made from.
func jobTemplate(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, owner metav1.OwnerReference) (*v1.PodTemplateSpec, string, error) {
	job, err := client.BatchV1().Jobs(pod.Namespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		return nil, "", err
	}
	if job.UID != owner.UID {
		return nil, "", fmt.Errorf("job.batch/%s is not the one that created the Pod", owner.Name)
	}
	return &job.Spec.Template, "", nil
}

// podTemplate is the Pod template that a Pod was created from.
type podTemplate struct {
	// name names it: replicaset.apps/web-5d4b8f7c9, or
	// statefulset.apps/db (revision db-7f9c5d8b6).
	name string
	spec *v1.PodSpec
}

// container returns the template's container of that name; a container
// that the template lacks has no probes.
func (t *podTemplate) container(name string) *v1.Container {
	for _, c := range probeContainers(t.spec) {
		if c.Name == name {
			return c
		}
	}
	return &v1.Container{Name: name}
}

// templates finds and remembers the templates that Pods were created from.
type templates struct {
	client kubernetes.Interface
	mu     sync.Mutex
	cache  map[string]templateResult
}

type templateResult struct {
	template *podTemplate
	err      error
}

func newTemplates(client kubernetes.Interface) *templates {
	return &templates{client: client, cache: map[string]templateResult{}}
}

// of returns the template of the revision of its controller that the Pod
// was created from, or nil for a Pod without such a controller.
func (t *templates) of(ctx context.Context, pod *v1.Pod) (*podTemplate, error) {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return nil, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, nil
	}
	kind, ok := workloadKinds[gv.WithKind(ref.Kind).GroupKind()]
	if !ok || kind.template == nil {
		return nil, nil
	}
	key := string(ref.UID) + "/" + pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey] + "/" + pod.Labels[appsv1.ControllerRevisionHashLabelKey]
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.cache[key]; ok {
		return r.template, r.err
	}
	var r templateResult
	name := kind.arg + "." + gv.Group + "/" + ref.Name
	spec, revision, err := kind.template(ctx, t.client, pod, *ref)
	if err != nil {
		r.err = fmt.Errorf("%s: %w", name, err)
	} else {
		if revision != "" {
			name += " (" + revision + ")"
		}
		r.template = &podTemplate{name: name, spec: &spec.Spec}
	}
	t.cache[key] = r
	return r.template, r.err
}

// targets are the Pods that a command works on, in order, each once.
type targets struct {
	pods []*v1.Pod
	// skipped are the Pods that were terminating or finished already, with
	// the reason.
	skipped []skippedPod
	// workloads names the workloads that the command line named, such as
	// deployment.apps/web, whose Pods are among pods.
	workloads []string
	// limits are the own limits of Pods out of service at once (see
	// workloadLimit) of the workloads named, and of those that the Pods
	// named or selected belong to.
	limits []limit
	// replicas is how many Pods those workloads ask for, and one for each
	// Pod named or selected that belongs to none: what --max-in-flight=N%
	// is of, and what the run's floor of Ready Pods is counted from.
	replicas int
	// ownersUnread is why the workloads of the Pods named or selected
	// could not be read (owners.workloadsOf); nil when they were.
	ownersUnread error

	// What current reads again: the Pods named, the workloads (named, and
	// those of the Pods named or selected), and the selector.
	named     []string
	objects   []*unstructured.Unstructured
	selector  string
	namespace string
}

type skippedPod struct {
	pod    *v1.Pod
	reason string
}

// leaving says why a Pod's probes cannot change any more, or "" when they
// can.
func leaving(pod *v1.Pod) string {
	switch {
	case pod.DeletionTimestamp != nil:
		return "terminating"
	case pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed:
		if pod.Status.Reason != "" {
			return fmt.Sprintf("finished (%s: %s)", pod.Status.Phase, pod.Status.Reason)
		}
		return fmt.Sprintf("finished (%s)", pod.Status.Phase)
	}
	return ""
}

// resolveTargets reads the Pods that the arguments or else the label
// selector name, in namespace. An argument is a Pod's name, or TYPE/NAME
// of a Pod or of any object that controls Pods through owner references,
// directly or through other controllers (a workload, see owners): it
// stands for the Pods that the workload controls now. A selector selects
// Pods. Pods that are terminating or finished are skipped. A Pod named or
// selected counts with the workload it belongs to, as if that were named
// (its replicas, its limit, its Pods in current), without changing the
// workload's other Pods. The workloads read are known to o from then on.
func resolveTargets(ctx context.Context, getter genericclioptions.RESTClientGetter, client kubernetes.Interface, o *owners, namespace string, args []string, selector string) (*targets, error) {
	b := resource.NewBuilder(getter).
		Unstructured().
		NamespaceParam(namespace).DefaultNamespace().
		Flatten()
	if len(args) > 0 {
		b = b.ResourceNames("pods", args...)
	} else {
		b = b.ResourceTypes("pods").LabelSelectorParam(selector)
	}
	infos, err := b.Do().Infos()
	if err != nil {
		return nil, err
	}
	t := &targets{selector: selector, namespace: namespace}
	seen := map[types.UID]bool{}
	add := func(pods ...*v1.Pod) {
		for _, pod := range pods {
			if seen[pod.UID] {
				continue
			}
			seen[pod.UID] = true
			if reason := leaving(pod); reason != "" {
				t.skipped = append(t.skipped, skippedPod{pod: pod, reason: reason})
				continue
			}
			t.pods = append(t.pods, pod)
		}
	}
	var direct []*v1.Pod
	for _, info := range infos {
		obj, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("%s: %T is not an object", info.ObjectName(), info.Object)
		}
		gk := info.Mapping.GroupVersionKind.GroupKind()
		if gk == v1.SchemeGroupVersion.WithKind("Pod").GroupKind() {
			pod := &v1.Pod{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, pod); err != nil {
				return nil, fmt.Errorf("pod/%s: %w", info.Name, err)
			}
			if selector == "" {
				t.named = append(t.named, pod.Name)
			}
			if !seen[pod.UID] {
				direct = append(direct, pod)
			}
			add(pod)
			continue
		}
		name := objectName(gk, info.Name)
		o.know(obj)
		pods, err := t.count(ctx, client, o, obj)
		if err != nil {
			return nil, err
		}
		if len(pods) == 0 {
			return nil, fmt.Errorf("%s controls no Pods, through owner references", name)
		}
		t.workloads = append(t.workloads, name)
		add(pods...)
	}
	groups, err := o.workloadsOf(ctx, direct, t.objects)
	t.ownersUnread = err
	for _, g := range groups {
		if g.workload != nil {
			_, err := t.count(ctx, client, o, g.workload)
			if err == nil {
				continue
			}
			if t.ownersUnread == nil {
				t.ownersUnread = err
			}
		}
		// Pods of no workload, or of one whose Pods cannot be read, count
		// alone.
		for _, pod := range g.pods {
			if leaving(pod) == "" {
				t.replicas++
			}
		}
	}
	if len(t.pods)+len(t.skipped) == 0 {
		return nil, fmt.Errorf("no Pods in namespace %q match -l %s", namespace, selector)
	}
	return t, nil
}

// count counts the workload in: its limit, its replicas, and its Pods,
// which current reads again. It returns the Pods that it controls now.
func (t *targets) count(ctx context.Context, client kubernetes.Interface, o *owners, workload *unstructured.Unstructured) ([]*v1.Pod, error) {
	name := nameOf(workload)
	pods, err := o.podsOf(ctx, client, workload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if slices.ContainsFunc(t.objects, func(o *unstructured.Unstructured) bool { return o.GetUID() == workload.GetUID() }) {
		// Named twice: counted once.
		return pods, nil
	}
	t.objects = append(t.objects, workload)
	if l := workloadLimit(name, workload); l != nil {
		t.limits = append(t.limits, *l)
	}
	// A kind that does not say how many Pods it asks for asks for those
	// it has that are not terminating or finished (a Job's done Pods).
	t.replicas += replicasOf(workload, len(slices.DeleteFunc(slices.Clone(pods), func(pod *v1.Pod) bool { return leaving(pod) != "" })))
	return pods, nil
}

// current reads the Pods of t again, as they are now: the Pods named that
// are still there, the Pods that the workloads control now (those named,
// and those that the Pods named or selected belong to), the Pods that the
// selector selects now; each once, but for those terminating or finished.
func (t *targets) current(ctx context.Context, client kubernetes.Interface, o *owners) ([]*v1.Pod, error) {
	pods := client.CoreV1().Pods(t.namespace)
	var all []*v1.Pod
	for _, name := range t.named {
		pod, err := pods.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, err
		default:
			all = append(all, pod)
		}
	}
	for _, obj := range t.objects {
		of, err := o.podsOf(ctx, client, obj)
		if err != nil {
			return nil, err
		}
		all = append(all, of...)
	}
	if t.selector != "" {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: t.selector})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			all = append(all, &list.Items[i])
		}
	}
	seen := map[types.UID]bool{}
	return slices.DeleteFunc(all, func(pod *v1.Pod) bool {
		drop := seen[pod.UID] || leaving(pod) != ""
		seen[pod.UID] = true
		return drop
	}), nil
}
