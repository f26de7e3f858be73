package probeplugin

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// nodeReadiness says, once for each node, why a node is not Ready: the
// node controller marks it so when its kubelet stops reporting, and leaves
// its Pods' containers running as last reported, though not Ready.
type nodeReadiness struct {
	client kubernetes.Interface
	// unread is told that the user may not read Nodes, the first time;
	// forbidden is set then, and no node is read again.
	unread    func(error)
	mu        sync.Mutex
	why       map[string]string
	forbidden bool
}

func newNodeReadiness(client kubernetes.Interface, unread func(error)) *nodeReadiness {
	return &nodeReadiness{client: client, unread: unread, why: map[string]string{}}
}

// notReady says why the node is not Ready; "" when it is, when the Pod is
// on no node, or when the node cannot be read (a user may read the Pods of
// a namespace and not the cluster's Nodes), as without it.
func (n *nodeReadiness) notReady(ctx context.Context, name string) string {
	if n == nil || name == "" {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if why, ok := n.why[name]; ok || n.forbidden {
		return why
	}
	why := ""
	node, err := n.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		// Another error, such as a timeout, leaves the node as Ready for
		// this read only.
		if n.forbidden = apierrors.IsForbidden(err); n.forbidden {
			n.unread(err)
		}
	} else {
		for _, c := range node.Status.Conditions {
			if c.Type == v1.NodeReady && c.Status != v1.ConditionTrue {
				why = fmt.Sprintf("its node %q is not Ready (%s)", name, cmp.Or(c.Reason, string(c.Status)))
			}
		}
	}
	n.why[name] = why
	return why
}

// forget forgets the nodes read, for a read of the Pods that follows: a node
// may stop reporting during a long run.
func (n *nodeReadiness) forget() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.why)
}

// skipOnNodeNotReady skips the Pod, and returns true, when its node is not
// Ready and the run waits on its change: its kubelet neither applies the
// change nor reports it, so the run would wait on it until --wait-timeout,
// and stop there. A run that waits on no change (--wait=none) stores it,
// for the kubelet to apply when it reports again.
func (r *runner) skipOnNodeNotReady(ctx context.Context, pr *podRun) bool {
	if r.wait == waitNone {
		return false
	}
	why := r.nodes.notReady(ctx, pr.pod.Spec.NodeName)
	if why == "" {
		return false
	}
	pr.result, pr.reason = resultSkipped, why+": its kubelet cannot apply the change until it is; run the command again then, or replace the Pod"
	return true
}

// precheckWorkers is how many Pods the pre-check checks at once, whatever
// --max-in-flight is: each try opens a stream through the API server (an
// exec, a port-forward or a Pod proxy request), which priority and fairness
// does not track as it tracks other requests.
const precheckWorkers = 10

// precheck is the run's second stage: every Pod is checked before the first
// one changes. It returns the Pods to change, or errReported when it
// refused some, and then no Pod changes. It asks for a confirmation of the
// changes that take a risk of their own.
func (r *runner) precheck(ctx context.Context, active []*podRun) ([]*podRun, error) {
	var wg sync.WaitGroup
	next := make(chan *podRun)
	for range min(precheckWorkers, len(active)) {
		wg.Go(func() {
			for pr := range next {
				r.check(ctx, pr)
			}
		})
	}
	for _, pr := range active {
		if ctx.Err() != nil {
			break
		}
		next <- pr
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		for _, pr := range active {
			pr.result, pr.reason = resultSkipped, "not changed: the run was interrupted"
		}
		r.report.interruptedBeforeChanges()
		return nil, reportedStatus(exitInterrupted)
	}

	var refused []*podRun
	for _, pr := range active {
		if pr.result == resultFailed {
			refused = append(refused, pr)
		}
	}
	if len(refused) > 0 {
		for _, pr := range active {
			switch pr.result {
			case resultSkipped:
				// Skipped for a cause of its own, such as its node.
				r.report.pod(pr)
			case "":
				pr.result, pr.reason = resultSkipped, "not changed: the pre-check refused other Pods"
			}
		}
		r.report.refusals(active, refused)
		return nil, errReported
	}
	r.report.precheck(active, r.wait)
	if r.templates != nil {
		r.report.restores(active)
	}
	for _, pr := range active {
		if pr.result != "" {
			r.report.pod(pr)
		}
	}
	todo := slices.DeleteFunc(slices.Clone(active), func(pr *podRun) bool { return pr.result != "" })
	if err := r.report.confirm(ctx, risks(todo)); err != nil {
		for _, pr := range todo {
			pr.result, pr.reason = resultSkipped, "not changed: not confirmed"
		}
		return nil, err
	}
	return todo, nil
}

// check checks that a Pod can take the change: the change applies to it,
// the API server accepts it (a server dry run, unless --dry-run=client
// sends nothing), and the new liveness and readiness probes succeed when
// tried against the Pod. It leaves the Pod's result empty when it passes,
// unchanged when the Pod is as asked already.
func (r *runner) check(ctx context.Context, pr *podRun) {
	if r.templates != nil {
		template, err := r.templates.of(ctx, pr.pod)
		if err != nil {
			// Without the template, restore could not tell a kept probe
			// from one that someone else wrote: only --force goes on.
			if rc, ok := unwrap(r.change).(restoreChange); ok && !rc.force {
				pr.result, pr.cause = resultFailed, cause{text: fmt.Sprintf("cannot read the template it was created from, to check the kept probes against: %v; --force restores them unchecked", err)}
				return
			}
			r.report.templateUnread(pr, err)
		}
		pr.template = template
	}
	modified, container, err := modify(pr.pod, r.container, r.change, pr.template)
	if err != nil {
		pr.refuse(err)
		return
	}
	pr.container, pr.modified = container, modified
	if len(changedProbes(pr.pod, modified, container)) == 0 && apiequality.Semantic.DeepEqual(pr.pod.Annotations, modified.Annotations) {
		pr.result = resultUnchanged
		return
	}
	if r.skipOnNodeNotReady(ctx, pr) {
		return
	}
	if r.dryRun == "client" {
		return
	}
	res, err := r.patcher.apply(ctx, pr.pod, r.container, r.change, pr.template, true)
	if err != nil {
		pr.refuse(err)
		return
	}
	pr.pod = res.read
	if !res.changed {
		pr.result = resultUnchanged
		return
	}
	pr.modified = res.stored
	pr.changes = changedProbes(pr.pod, pr.modified, container)
	pr.checked, _ = stateAt(pr.pod, container)
	if r.prober == nil {
		return
	}
	c, _, err := findContainer(pr.modified, container)
	if err != nil {
		return
	}
	pr.tried = map[probeType]tried{}
	for _, t := range changedProbes(pr.pod, pr.modified, container) {
		probe := *t.of(c)
		if t == startup || probe == nil {
			continue
		}
		got := r.prober.try(ctx, pr.pod, c, probe)
		if got.dropped {
			// A container that is starting, or in a restart loop, may not
			// listen yet, or may stop before the try reaches it: a
			// refused or dropped connection is no answer of the new
			// probe then, and the proof after the change judges it, as
			// when the API server cannot reach the Pod.
			if why := notListening(pr.pod, container, probe, time.Now()); why != "" {
				got = tried{notTried: fmt.Sprintf("%s, and did not answer (%s)", why, got.answer)}
			} else if how := r.stoppedSince(ctx, pr.pod, container); how != "" {
				got = tried{notTried: fmt.Sprintf("the container %s while it was tried (%s)", how, got.answer)}
			}
		}
		if got.notTried == "" && !got.ok && failsAsBefore(pr.pod, container, t, probe) {
			// Only its timing or thresholds changed, none to be stricter:
			// it fails now as the probe before it does, which a relaxed
			// liveness probe is meant to tolerate while a dependency
			// flaps. The proof after the change judges it by its
			// threshold, not by one try.
			got.asBefore = true
		}
		pr.tried[t] = got
		if got.notTried == "" && !got.ok && !got.asBefore {
			pr.result = resultFailed
			pr.cause = cause{
				text: fmt.Sprintf("the new %s probe of container %q fails now: %s: %s", t, container, describeHandler(probe), got.answer),
				hint: "--skip-check stores it anyway",
			}
			return
		}
	}
}

// failsAsBefore says whether probe, the new probe of type t of the Pod's
// container, asks what the container's probe asks now, with timing and
// thresholds no stricter in any field (probeSooner): a relaxation, which
// fails now as the probe before it does.
func failsAsBefore(pod *v1.Pod, container string, t probeType, probe *v1.Probe) bool {
	c, _, err := findContainer(pod, container)
	if err != nil {
		return false
	}
	old := *t.of(c)
	return old != nil && apiequality.Semantic.DeepEqual(old.ProbeHandler, probe.ProbeHandler) && probeSooner(probe, old) == ""
}

// startGrace is how long after a container starts the probe lets it fail
// before the kubelet acts on it: its initial delay, then failureThreshold
// periods.
func startGrace(probe *v1.Probe) time.Duration {
	d := withDefaults(probe)
	return time.Duration(d.InitialDelaySeconds+d.FailureThreshold*d.PeriodSeconds) * time.Second
}

// restartLoop is how long after a container's last run ended it counts as
// in a restart loop: the kubelet starts its back-off from 10 s again after a
// run of 10 minutes.
const restartLoop = 10 * time.Minute

// notListening says why a container, as read before a try, may not listen
// on the port it refused or dropped: it started within the time the new
// probe gives it to start (its initialDelaySeconds, then failureThreshold
// periods) and no readiness probe has found it Ready yet (a container
// without one is Ready once it runs, listening or not), or it is in a
// restart loop, where it runs a second or two, or not yet, whatever its
// status said when it was read. It is "" for any other container: a
// container that a readiness probe found Ready, or that started long
// enough ago, and that has not stopped lately, serves, and nothing listens
// on a port it refuses.
func notListening(pod *v1.Pod, container string, probe *v1.Probe, now time.Time) string {
	c, _, err := findContainer(pod, container)
	status := containerStatus(pod, container)
	if err != nil || status == nil {
		return ""
	}
	servedReady := status.Ready && c.ReadinessProbe != nil
	if running := status.State.Running; running != nil && !servedReady && now.Sub(running.StartedAt.Time) < startGrace(probe) {
		return "the container is starting, within the time the new probe gives it to start, and no readiness probe has found it Ready yet"
	}
	if ended := status.LastTerminationState.Terminated; status.RestartCount > 0 && ended != nil && now.Sub(ended.FinishedAt.Time) < restartLoop {
		return "the container is in a restart loop"
	}
	return ""
}

// stopGrace is how long after a dropped try the pre-check reads the Pod
// again, for its kubelet to report that the container stopped: the kubelet
// sees it within its relist period, 1s, then reports the Pod's status,
// later on a node that restarts many containers at once.
const stopGrace = 5 * time.Second

// stoppedSince says how the container of the Pod, as read before a try,
// stopped since: "restarted" when its restart count or ID changed,
// "stopped" when it does not run any more. It is "" when the container
// runs on, as it was, through stopGrace, or the Pod cannot be read: then
// the try's answer stands.
func (r *runner) stoppedSince(ctx context.Context, pod *v1.Pod, container string) string {
	was := containerStatus(pod, container)
	if was == nil {
		return ""
	}
	how := ""
	_ = wait.PollUntilContextTimeout(ctx, time.Second, stopGrace, true, func(ctx context.Context) (bool, error) {
		now, err := r.patcher.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		switch is := containerStatus(now, container); {
		case is != nil && (is.RestartCount != was.RestartCount || is.ContainerID != was.ContainerID):
			how = "restarted"
		case is == nil || is.State.Running == nil:
			how = "stopped"
		}
		return how != "", nil
	})
	return how
}

// risks are the warnings about changes that take a risk of their own, one
// for each kind: removing a readiness probe, or the startup probe of a
// container that has not started.
func risks(todo []*podRun) []string {
	var noReadiness, notStarted []string
	for _, pr := range todo {
		before, after := probesOf(pr.pod, pr.container), probesOf(pr.modified, pr.container)
		if before[readiness] != nil && after[readiness] == nil {
			noReadiness = append(noReadiness, "pod/"+pr.pod.Name)
		}
		if s := containerStatus(pr.pod, pr.container); before[startup] != nil && after[startup] == nil && (s == nil || s.Started == nil || !*s.Started) {
			notStarted = append(notStarted, "pod/"+pr.pod.Name)
		}
	}
	var warnings []string
	if len(noReadiness) > 0 {
		warnings = append(warnings, fmt.Sprintf("without a readiness probe a container counts as Ready: %s join their Services' endpoints whether they serve or not", strings.Join(noReadiness, ", ")))
	}
	if len(notStarted) > 0 {
		warnings = append(warnings, fmt.Sprintf("the container has not started on %s: without its startup probe, its liveness probe starts at once and may restart it", strings.Join(notStarted, ", ")))
	}
	return warnings
}
