package probeplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// outcome is what happened to one Pod.
type outcome int

const (
	notStarted outcome = iota
	done
	failed
)

// rollout changes Pods with a patcher, maxInFlight at a time, waiting for
// each changed Pod to be Ready again when wait is set. It stops starting
// Pods at the first one that fails.
type rollout struct {
	patcher     *patcher
	maxInFlight int
	wait        bool
	timeout     time.Duration

	// printChanged and printUnchanged print a Pod that changed or was as
	// asked already.
	printChanged, printUnchanged printers.ResourcePrinter
	out, errOut                  io.Writer
	mu                           sync.Mutex // serialises writes to out and errOut
}

// run changes the Pods and returns how many changed, and an error that says
// which Pods were done and which were not when one fails.
func (r *rollout) run(ctx context.Context, pods []*v1.Pod) (int, error) {
	outcomes := make([]outcome, len(pods))
	var (
		stop    atomic.Bool
		changed atomic.Int64
	)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(r.maxInFlight, len(pods)) {
		wg.Go(func() {
			for i := range next {
				// A Pod handed over after another failed is not started.
				if stop.Load() {
					continue
				}
				didChange, err := r.one(ctx, pods[i])
				if didChange {
					changed.Add(1)
				}
				outcomes[i] = done
				if err != nil {
					outcomes[i] = failed
					stop.Store(true)
					r.report(pods[i], err)
				}
			}
		})
	}
	for i := range pods {
		if stop.Load() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return int(changed.Load()), summary(pods, outcomes)
}

// one changes a Pod, prints it, and waits for it to be Ready if asked. It
// says whether the Pod changed, also when it then fails to be Ready.
func (r *rollout) one(ctx context.Context, pod *v1.Pod) (bool, error) {
	stored, didChange, err := r.patcher.apply(ctx, pod)
	if err != nil {
		return false, err
	}
	printer := r.printUnchanged
	if didChange {
		printer = r.printChanged
	}
	r.mu.Lock()
	err = printer.PrintObj(stored, r.out)
	r.mu.Unlock()
	if err != nil {
		return didChange, err
	}
	if didChange && r.wait {
		if err := waitReady(ctx, r.patcher.client, stored, r.timeout); err != nil {
			return true, fmt.Errorf("changed, but %w", err)
		}
	}
	return didChange, nil
}

// report prints the error of one Pod and a hint at its likely cause.
func (r *rollout) report(pod *v1.Pod, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.errOut, "error: pod/%s: %v\n", pod.Name, err)
	if h := hint(err); h != "" {
		fmt.Fprintf(r.errOut, "hint: %s\n", h)
	}
}

// summary returns nil when every Pod was done, and otherwise an error that
// lists the Pods that were done, failed and not started.
func summary(pods []*v1.Pod, outcomes []outcome) error {
	var finished, bad, rest []string
	for i, pod := range pods {
		name := "pod/" + pod.Name
		switch outcomes[i] {
		case done:
			finished = append(finished, name)
		case failed:
			bad = append(bad, name)
		default:
			rest = append(rest, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if len(pods) == 1 {
		return errReported
	}
	list := func(names []string) string {
		if len(names) == 0 {
			return "none"
		}
		return strings.Join(names, " ")
	}
	return fmt.Errorf("stopped at the first Pod that failed\ndone (%d): %s\nfailed (%d): %s\nnot started, left as they are (%d): %s",
		len(finished), list(finished), len(bad), list(bad), len(rest), list(rest))
}

// waitReady waits until the kubelet has seen the Pod's generation (the
// Pod's status.observedGeneration) and the Pod is Ready.
func waitReady(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, timeout time.Duration) error {
	ctx, cancel := watchtools.ContextWithOptionalTimeout(ctx, timeout)
	defer cancel()
	pods := client.CoreV1().Pods(pod.Namespace)
	field := fields.OneTermEqualSelector(metav1.ObjectNameField, pod.Name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = field
			return pods.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = field
			return pods.Watch(ctx, opts)
		},
	}
	_, err := watchtools.UntilWithSync(ctx, cache.ToListWatcherWithWatchListSemantics(lw, client), &v1.Pod{}, nil, func(e watch.Event) (bool, error) {
		if e.Type == watch.Deleted {
			return false, errors.New("the Pod was deleted while waiting for it to be Ready")
		}
		p, ok := e.Object.(*v1.Pod)
		if !ok {
			return false, nil
		}
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			return false, fmt.Errorf("the Pod is %s, it will not be Ready again", p.Status.Phase)
		}
		return p.Status.ObservedGeneration >= pod.Generation && isReady(p), nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("not Ready within %s (--timeout)", timeout)
	}
	return err
}

func isReady(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}
