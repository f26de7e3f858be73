package probeplugin

import (
	"cmp"
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
	"k8s.io/client-go/kubernetes/scheme"
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
	// revisionLabels are the labels, one of which its Pods carry, that
	// name the revision of its template that they were made from, when it
	// may have several; none for a kind whose template does not change (a
	// Job's).
	revisionLabels []string
}

// rolloutUniqueLabelKey is the label by which an Argo Rollout's
// ReplicaSets name their revision on their Pods, as a Deployment's do with
// pod-template-hash.
const rolloutUniqueLabelKey = "rollouts-pod-template-hash"

// workloadKinds are the built-in kinds of workload, which shell completion
// offers, and the kinds of controller whose template a Pod's probes are
// compared with.
var workloadKinds = map[schema.GroupKind]workloadKind{
	{Group: "apps", Kind: "Deployment"}:  {arg: "deployment"},
	{Group: "apps", Kind: "ReplicaSet"}:  {arg: "replicaset", template: replicaSetTemplate, revisionLabels: []string{appsv1.DefaultDeploymentUniqueLabelKey, rolloutUniqueLabelKey}},
	{Group: "apps", Kind: "StatefulSet"}: {arg: "statefulset", template: revisionTemplate, revisionLabels: []string{appsv1.ControllerRevisionHashLabelKey}},
	{Group: "apps", Kind: "DaemonSet"}:   {arg: "daemonset", template: revisionTemplate, revisionLabels: []string{appsv1.ControllerRevisionHashLabelKey}},
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
	key := templateKey(pod, ref)
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
	// floors are the workloads whose Pods a run counts, each Pod once,
	// under its top workload (owners.workloadsOf), whatever named it, each
	// followed by those under it that have limits of their own; then the
	// Pods whose controllers cannot be read, by the first one that cannot;
	// and last, when there are any, the Pods that belong to none.
	floors []*workloadFloor

	// What current reads again: the Pods named, and the selector.
	named     []string
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
// Pods. Pods that are terminating or finished are skipped. Each Pod counts
// with the top workload it belongs to, however it was named (its replicas,
// its limit, its Pods in current), without changing the workload's other
// Pods. The workloads read are known to o from then on.
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
	// podsOf are the Pods of the workloads read, by their UIDs.
	podsOf := map[types.UID]workloadPods{}
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
			add(pod)
			continue
		}
		name := objectName(gk, info.Name)
		o.know(obj)
		pods, unread, err := o.podsOf(ctx, client, obj)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %w", name, err)
		case len(pods) == 0 && unread != nil:
			return nil, fmt.Errorf("%s controls no Pods that kubectl probe can tell, through owner references: %w", name, unread)
		case len(pods) == 0:
			return nil, fmt.Errorf("%s controls no Pods, through owner references", name)
		}
		podsOf[obj.GetUID()] = workloadPods{pods: pods, unread: unread}
		add(pods...)
	}
	var alone []*v1.Pod
	for _, g := range o.workloadsOf(ctx, t.pods) {
		switch {
		case g.unread != nil:
			t.floors = append(t.floors, unknownFloor(g.unread.name, fmt.Sprintf("cannot read it: %v", g.unread.err), g.pods))
			continue
		case g.workload == nil:
			alone = append(alone, g.pods...)
			continue
		}
		read, ok := podsOf[g.workload.GetUID()]
		if !ok {
			var err error
			if read.pods, read.unread, err = o.podsOf(ctx, client, g.workload); err != nil {
				// The run's Pods of a workload whose Pods cannot be read
				// count by themselves.
				f := unknownFloor(nameOf(g.workload), fmt.Sprintf("cannot read its Pods: %v", err), g.pods)
				f.workload = g.workload
				t.floors = append(t.floors, f)
				continue
			}
		}
		top := newWorkloadFloor(g.workload, read)
		t.floors = append(t.floors, top)
		for _, inner := range g.inner {
			pods, unread, err := o.podsOf(ctx, client, inner)
			if err != nil {
				// Its Pods are among the top one's, whose limit is its at
				// most.
				top.unknown = cmp.Or(top.unknown, fmt.Sprintf("cannot read the Pods of %s, which it controls: %v", nameOf(inner), err))
				continue
			}
			f := newWorkloadFloor(inner, workloadPods{pods: pods, unread: unread})
			f.floor.within = top.floor.name
			t.floors = append(t.floors, f)
		}
	}
	if len(alone) > 0 {
		t.floors = append(t.floors, &workloadFloor{floor: newFloor("", limit{}, len(alone), alone)})
	}
	if len(t.pods)+len(t.skipped) == 0 {
		return nil, fmt.Errorf("no Pods in namespace %q match -l %s", namespace, selector)
	}
	return t, nil
}

// workloadPods are the Pods of a workload that podsOf read, and why they
// may not be all of them; nil when they are.
type workloadPods struct {
	pods   []*v1.Pod
	unread error
}

// newWorkloadFloor returns the workload with its floor (count), which
// counts the Pods that it controls. Its limit is not known when its Pods
// could not all be told, or it is of a kind that is not built in, whose
// controller may keep a limit of its own (an Argo Rollout's
// maxUnavailable) where kubectl probe cannot read it.
func newWorkloadFloor(workload *unstructured.Unstructured, read workloadPods) *workloadFloor {
	w := &workloadFloor{}
	w.count(workload, read.pods)
	switch {
	case read.unread != nil:
		w.unknown = fmt.Sprintf("cannot tell whether some Pods are its: %v", read.unread)
	case !scheme.Scheme.Recognizes(workload.GroupVersionKind()):
		w.custom = true
	}
	return w
}

// count sets the workload, as read, its own limit (workloadLimit), and its
// floor, which counts pods, the Pods that it controls, but those
// terminating or finished, of its replicas; a kind that does not say how
// many Pods it asks for asks for those (a Job's done Pods do not count).
// The floor keeps the limit that chooseLimits chose last, until it chooses
// again, and the workload that it is within.
func (w *workloadFloor) count(workload *unstructured.Unstructured, pods []*v1.Pod) {
	name := nameOf(workload)
	pods = slices.DeleteFunc(slices.Clone(pods), func(pod *v1.Pod) bool { return leaving(pod) != "" })
	f := newFloor(name, w.floor.limit, replicasOf(workload, len(pods)), pods)
	f.within = w.floor.within
	w.workload, w.own, w.floor = workload, workloadLimit(name, workload), f
}

// unknownFloor returns the floor of the run's Pods of a workload, name,
// that cannot be read, or whose Pods cannot be (why): it counts those Pods
// alone, read again by name, and its limit is not known.
func unknownFloor(name, why string, pods []*v1.Pod) *workloadFloor {
	w := &workloadFloor{unknown: why, floor: newFloor(name, limit{}, len(pods), pods)}
	for _, pod := range pods {
		w.named = append(w.named, pod.Name)
	}
	return w
}

// workloadOf names the workload whose floor counts the Pod; "" for a Pod
// of none.
func (t *targets) workloadOf(pod *v1.Pod) string {
	for _, w := range t.floors {
		if w.floor.within == "" && w.floor.pods[pod.UID] {
			return w.floor.name
		}
	}
	return ""
}

// revisionOf names the template that the Pod was made from, as the Pod
// tells it (templateKey), for a controller of a kind whose templates the
// run knows (workloadKinds). It is "" for a Pod whose template is not
// known, which may share it with no other Pod: a Pod of no controller, or
// of a kind whose templates the run does not know (an operator that owns
// its Pods may make them of several templates with no label that names
// them), and a Pod without the label that names its controller's revision
// (a ReplicaSet that no Deployment or Argo Rollout made, whose template may
// be changed in place; an adopted Pod, or one whose label was removed).
func revisionOf(pod *v1.Pod) string {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return ""
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return ""
	}
	kind, ok := workloadKinds[gv.WithKind(ref.Kind).GroupKind()]
	if !ok || kind.template == nil {
		return ""
	}
	if len(kind.revisionLabels) > 0 && !slices.ContainsFunc(kind.revisionLabels, func(label string) bool { _, ok := pod.Labels[label]; return ok }) {
		return ""
	}
	return templateKey(pod, ref)
}

// templateKey names the revision of the Pod's controller, ref, that the Pod
// was made from: the controller's UID, and the revision that the Pod's
// labels name. A Deployment's ReplicaSet is of one revision, which its
// Pods' pod-template-hash names (an Argo Rollout's,
// rollouts-pod-template-hash), and a ReplicaSet's template that was
// changed since it made a Pod gives its next Pods another; a StatefulSet's
// and a DaemonSet's revisions share the controller, and their Pods'
// controller-revision-hash names them.
func templateKey(pod *v1.Pod, ref *metav1.OwnerReference) string {
	return string(ref.UID) + "/" + pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey] + "/" + pod.Labels[rolloutUniqueLabelKey] + "/" + pod.Labels[appsv1.ControllerRevisionHashLabelKey]
}

// workloadFloors returns the floors of the workloads of t, as they were
// read.
func (t *targets) workloadFloors() []floor {
	var floors []floor
	for _, w := range t.floors {
		floors = append(floors, w.floor)
	}
	return floors
}

// current reads the Pods of t again, as they are now: the Pods that the
// workloads control now (those named, and those that the Pods named or
// selected belong to), the Pods named that are still there, the Pods that
// the selector selects now; each once, but for those terminating or
// finished. It reads the workloads again too, since an autoscaler may
// scale one during a run, and counts the floor of each one anew (count),
// of its replicas now, and chooses their limits again (chooseLimits), with
// --max-in-flight, flag, and the floors of the PodDisruptionBudgets as
// just read, budgets: as the run began, but for the workloads as they are
// now. It returns the Pods, and the floors of the workloads, each counting
// its Pods now, and the floor of the Pods that belong to none, the other
// Pods named or selected; and the largest limit.
func (t *targets) current(ctx context.Context, client kubernetes.Interface, o *owners, flag string, budgets []floor) ([]*v1.Pod, []floor, int, error) {
	pods := client.CoreV1().Pods(t.namespace)
	var (
		all   []*v1.Pod
		alone *workloadFloor
		seen  = map[types.UID]bool{}
	)
	// keep returns the Pods of read that are not counted yet, and counts
	// them.
	keep := func(read []*v1.Pod) []*v1.Pod {
		read = slices.DeleteFunc(read, func(pod *v1.Pod) bool {
			drop := seen[pod.UID] || leaving(pod) != ""
			seen[pod.UID] = true
			return drop
		})
		all = append(all, read...)
		return read
	}
	for _, w := range t.floors {
		switch {
		case w.named != nil:
			var read []*v1.Pod
			for _, name := range w.named {
				pod, err := pods.Get(ctx, name, metav1.GetOptions{})
				switch {
				case apierrors.IsNotFound(err):
				case err != nil:
					return nil, nil, 0, err
				default:
					read = append(read, pod)
				}
			}
			w.floor = w.floor.recount(keep(read))
		case w.workload == nil:
			alone = w
		default:
			// A workload that cannot be read again keeps its replicas and
			// its own limit as last read, rather than stop the run; so
			// does one that is gone, whose Pods go with it.
			if now, err := o.again(ctx, w.workload); err == nil && now != nil {
				w.workload = now
			}
			read, _, err := o.podsOf(ctx, client, w.workload)
			if err != nil {
				return nil, nil, 0, err
			}
			if w.floor.within == "" {
				// The Pods of a workload under another are counted
				// already: they count in its floor too.
				read = keep(read)
			}
			w.count(w.workload, read)
		}
	}
	var others []*v1.Pod
	for _, name := range t.named {
		pod, err := pods.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, nil, 0, err
		default:
			others = append(others, pod)
		}
	}
	if t.selector != "" {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: t.selector})
		if err != nil {
			return nil, nil, 0, err
		}
		for i := range list.Items {
			others = append(others, &list.Items[i])
		}
	}
	others = keep(others)
	if alone != nil {
		alone.floor = alone.floor.recount(others)
	}
	largest, err := t.chooseLimits(flag, budgets)
	if err != nil {
		return nil, nil, 0, err
	}
	return all, t.workloadFloors(), largest, nil
}
