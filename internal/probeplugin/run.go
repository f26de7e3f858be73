package probeplugin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubectl/pkg/util/term"
	"sigs.k8s.io/yaml"
)

// result is what a run did to a Pod.
type result string

const (
	resultChanged   result = "changed"
	resultUnchanged result = "unchanged"
	resultSkipped   result = "skipped"
	resultFailed    result = "failed"
)

// podRun is one Pod's way through a run.
type podRun struct {
	// pod is the Pod as last read.
	pod      *v1.Pod
	template *podTemplate
	// container is the name of the container that the change is made to.
	container string
	// modified is pod with the change.
	modified *v1.Pod
	// stored is the Pod as the change stored it.
	stored *v1.Pod
	result result
	reason string
	cause  cause
	tried  map[probeType]tried
}

// runner carries out a change (set, disable, restore) on the target Pods:
// first a check of every Pod, then the changes, one Pod after another
// (maxInFlight at a time), each confirmed before the next Pod changes.
type runner struct {
	patcher   *patcher
	change    change
	container string // -c
	// templates, when set, finds the templates that restore compares with.
	templates *templates
	// dryRun is "", "client" or "server".
	dryRun      string
	maxInFlight int
	// waiter, when set, confirms each change (--wait).
	waiter        *waiter
	prober        prober // nil with --skip-check
	undoOnFailure bool
	yes           bool
	// output is -o: "", "name", "json" or "yaml".
	output string
	// operation is what a change did, as printed: "probes set".
	operation   string
	in          io.Reader
	out, errOut io.Writer
	mu          sync.Mutex // serialises writes to out and errOut

	// runs are the Pods of the last run.
	runs []*podRun
}

// changed says whether the last run changed a Pod.
func (r *runner) changed() bool {
	return slices.ContainsFunc(r.runs, func(pr *podRun) bool { return pr.result == resultChanged })
}

// precheckWorkers is how many Pods the pre-check checks at once, at least.
const precheckWorkers = 10

// run changes the Pods of t. It returns errReported when it printed why
// it failed.
func (r *runner) run(ctx context.Context, t *targets) error {
	var runs []*podRun
	for _, s := range t.skipped {
		runs = append(runs, &podRun{pod: s.pod, result: resultSkipped, reason: s.reason})
	}
	var active []*podRun
	for _, pod := range t.pods {
		pr := &podRun{pod: pod}
		runs = append(runs, pr)
		active = append(active, pr)
	}
	r.runs = runs
	defer func() { r.printResults(runs) }()
	for _, pr := range runs {
		if pr.result == resultSkipped {
			r.printPod(pr)
		}
	}

	// 1. Every Pod is checked before the first one changes.
	r.each(ctx, active, max(r.maxInFlight, precheckWorkers), func(ctx context.Context, pr *podRun) bool {
		r.precheck(ctx, pr)
		return true
	})
	var refused []*podRun
	for _, pr := range active {
		if pr.result == resultFailed {
			refused = append(refused, pr)
		}
	}
	if len(refused) > 0 {
		for _, pr := range active {
			if pr.result == "" {
				pr.result, pr.reason = resultSkipped, "not changed: the pre-check refused other Pods"
			}
		}
		r.printRefusals(active, refused)
		return errReported
	}
	r.printPrecheck(active)
	if r.templates != nil {
		r.printRestores(active)
	}
	for _, pr := range active {
		if pr.result != "" {
			r.printPod(pr)
		}
	}
	todo := slices.DeleteFunc(slices.Clone(active), func(pr *podRun) bool { return pr.result != "" })
	if err := r.confirmRisks(todo); err != nil {
		for _, pr := range todo {
			pr.result, pr.reason = resultSkipped, "not changed: not confirmed"
		}
		return err
	}

	// 2. The changes.
	if r.dryRun != "" {
		for _, pr := range todo {
			pr.result, pr.stored = resultChanged, pr.modified
			r.printPod(pr)
		}
		return nil
	}
	var stoppedAt atomic.Pointer[podRun]
	r.each(ctx, todo, r.maxInFlight, func(ctx context.Context, pr *podRun) bool {
		if stoppedAt.Load() != nil {
			return false
		}
		if !r.one(ctx, pr) {
			stoppedAt.CompareAndSwap(nil, pr)
			return false
		}
		return true
	})
	if first := stoppedAt.Load(); first != nil {
		var done, failed, rest []string
		for _, pr := range todo {
			switch pr.result {
			case resultChanged:
				done = append(done, "pod/"+pr.pod.Name)
			case resultFailed:
				failed = append(failed, "pod/"+pr.pod.Name)
			case "":
				pr.result, pr.reason = resultSkipped, "not changed: the run stopped at pod/"+first.pod.Name
				rest = append(rest, "pod/"+pr.pod.Name)
			}
		}
		if len(todo) == 1 {
			return errReported
		}
		return fmt.Errorf("stopped at the first Pod that failed\ndone (%d): %s\nfailed (%d): %s\nnot started, left as they are (%d): %s",
			len(done), list(done), len(failed), list(failed), len(rest), list(rest))
	}
	for _, pr := range runs {
		if pr.result == resultChanged || pr.result == resultUnchanged {
			return nil
		}
	}
	return errors.New("no Pod was changed: each one was skipped")
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// each calls f on the Pods, workers at a time, in order, and stops handing
// out Pods once f returns false.
func (r *runner) each(ctx context.Context, runs []*podRun, workers int, f func(context.Context, *podRun) bool) {
	next := make(chan *podRun)
	var (
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range min(workers, len(runs)) {
		wg.Go(func() {
			for pr := range next {
				if !f(ctx, pr) {
					stop.Store(true)
				}
			}
		})
	}
	for _, pr := range runs {
		if stop.Load() || ctx.Err() != nil {
			break
		}
		next <- pr
	}
	close(next)
	wg.Wait()
}

// precheck checks that a Pod can take the change: the change applies to
// it, the API server accepts it (a server dry run, unless --dry-run=client
// sends nothing), and the new liveness and readiness probes succeed when
// tried against the Pod. It leaves the Pod's result empty when it passes,
// unchanged when the Pod is as asked already.
func (r *runner) precheck(ctx context.Context, pr *podRun) {
	if r.templates != nil {
		template, err := r.templates.of(ctx, pr.pod)
		if err != nil {
			// Without the template, restore could not tell a kept probe
			// from one that someone else wrote: only --force goes on.
			if rc, ok := r.change.(restoreChange); ok && !rc.force {
				pr.result, pr.cause = resultFailed, cause{text: fmt.Sprintf("cannot read the template it was created from, to check the kept probes against: %v; --force restores them unchecked", err)}
				return
			}
			r.warnf("warning: pod/%s: cannot read the template it was created from: %v\n", pr.pod.Name, err)
		}
		pr.template = template
	}
	modified, container, err := modify(pr.pod, r.container, r.change, pr.template)
	if err != nil {
		pr.result, pr.cause = resultFailed, cause{text: err.Error()}
		return
	}
	pr.container, pr.modified = container, modified
	if len(changedProbes(pr.pod, modified, container)) == 0 && pr.pod.Annotations[keptAnnotation] == modified.Annotations[keptAnnotation] {
		pr.result = resultUnchanged
		return
	}
	if r.dryRun == "client" {
		return
	}
	res, err := r.patcher.apply(ctx, pr.pod, r.container, r.change, pr.template, true)
	if err != nil {
		pr.cause = causeOf(err)
		if pr.cause.skip != "" {
			pr.result, pr.reason = resultSkipped, pr.cause.skip
		} else {
			pr.result = resultFailed
		}
		return
	}
	pr.pod = res.read
	if !res.changed {
		pr.result = resultUnchanged
		return
	}
	pr.modified = res.stored
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
		pr.tried[t] = got
		if got.notTried == "" && !got.ok {
			pr.result = resultFailed
			pr.cause = cause{
				text: fmt.Sprintf("the new %s probe of container %q fails now: %s: %s", t, container, describeHandler(probe), got.answer),
				hint: "--skip-check stores it anyway",
			}
			return
		}
	}
}

// printRefusals prints why the pre-check refused Pods: one line for each
// cause, with the Pods it refused.
func (r *runner) printRefusals(active, refused []*podRun) {
	var (
		order  []string
		byText = map[string][]*podRun{}
	)
	for _, pr := range refused {
		if byText[pr.cause.text] == nil {
			order = append(order, pr.cause.text)
		}
		byText[pr.cause.text] = append(byText[pr.cause.text], pr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(active) == 1 {
		pr := refused[0]
		fmt.Fprintf(r.errOut, "error: pod/%s: %s\n", pr.pod.Name, pr.cause.text)
		if pr.cause.hint != "" {
			fmt.Fprintf(r.errOut, "hint: %s\n", pr.cause.hint)
		}
		return
	}
	fmt.Fprintf(r.errOut, "error: the pre-check refused %d of %d Pods; no Pod was changed:\n", len(refused), len(active))
	for _, text := range order {
		prs := byText[text]
		var names []string
		for _, pr := range prs {
			names = append(names, "pod/"+pr.pod.Name)
		}
		fmt.Fprintf(r.errOut, "- %s: %s\n", strings.Join(names, ", "), text)
		if prs[0].cause.hint != "" {
			fmt.Fprintf(r.errOut, "  hint: %s\n", prs[0].cause.hint)
		}
	}
}

// printPrecheck says what the pre-check found, in a line or two.
func (r *runner) printPrecheck(active []*podRun) {
	var (
		checked   []*podRun
		forbidden []string
	)
	type group struct {
		t               probeType
		handler, answer string
		passed          int
		notTried        map[string]int
	}
	var groups []*group
	find := func(t probeType, handler string) *group {
		for _, g := range groups {
			if g.t == t && g.handler == handler {
				return g
			}
		}
		g := &group{t: t, handler: handler, notTried: map[string]int{}}
		groups = append(groups, g)
		return g
	}
	for _, pr := range active {
		if pr.result != "" {
			continue
		}
		checked = append(checked, pr)
		c, _, err := findContainer(pr.modified, pr.container)
		if err != nil {
			continue
		}
		for _, t := range probeTypes {
			got, ok := pr.tried[t]
			if !ok {
				continue
			}
			g := find(t, describeHandler(*t.of(c)))
			switch {
			case got.forbidden:
				if !slices.Contains(forbidden, got.notTried) {
					forbidden = append(forbidden, got.notTried)
				}
			case got.notTried != "":
				g.notTried[got.notTried]++
			default:
				g.passed++
				g.answer = got.answer
			}
		}
	}
	if len(checked) == 0 || r.dryRun == "client" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	what := "pod/" + checked[0].pod.Name
	if len(checked) > 1 {
		what = fmt.Sprintf("%d Pods", len(checked))
	}
	fmt.Fprintf(r.errOut, "pre-check: the API server accepts the change to %s (server dry run)\n", what)
	for _, g := range groups {
		if g.passed > 0 {
			on := ""
			if len(checked) > 1 {
				on = " on " + pods(g.passed)
			}
			fmt.Fprintf(r.errOut, "pre-check: the new %s probe succeeds%s: %s: %s\n", g.t, on, g.handler, g.answer)
		}
		for why, n := range g.notTried {
			fmt.Fprintf(r.errOut, "pre-check: the new %s probe was not tried on %s: %s\n", g.t, pods(n), why)
		}
	}
	for _, why := range forbidden {
		fmt.Fprintf(r.errOut, "pre-check: the new probe was not tried: %s; the readiness wait still checks a readiness probe\n", why)
	}
}

// printRestores shows what restore puts back: one line for each probe,
// with the Pods it goes back to.
func (r *runner) printRestores(active []*podRun) {
	var (
		order []string
		names = map[string][]string{}
	)
	for _, pr := range active {
		if pr.result != "" {
			continue
		}
		after := probesOf(pr.modified, pr.container)
		for _, t := range changedProbes(pr.pod, pr.modified, pr.container) {
			what := fmt.Sprintf("the %s probe of container %q: %s", t, pr.container, describeProbe(after[t]))
			switch {
			case pr.template == nil:
				what += " (the Pod has no template to compare it with)"
			case equalProbes(after[t], *t.of(pr.template.container(pr.container))):
				what += " (the template's)"
			default:
				what += " (not the template's)"
			}
			if names[what] == nil {
				order = append(order, what)
			}
			names[what] = append(names[what], "pod/"+pr.pod.Name)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, what := range order {
		fmt.Fprintf(r.errOut, "restore: puts back on %s %s\n", strings.Join(names[what], ", "), what)
	}
}

func pods(n int) string {
	if n == 1 {
		return "1 Pod"
	}
	return fmt.Sprintf("%d Pods", n)
}

// confirmRisks warns before changes that take a risk of their own, one line
// for each kind, and goes on only with --yes or when the user says yes on
// a terminal.
func (r *runner) confirmRisks(todo []*podRun) error {
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
	if len(warnings) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range warnings {
		fmt.Fprintf(r.errOut, "warning: %s\n", w)
	}
	if r.yes || r.dryRun != "" {
		return nil
	}
	if !(term.TTY{In: r.in}).IsTerminalIn() {
		return errors.New("not confirmed: give --yes to go on (there is no terminal to ask on)")
	}
	fmt.Fprint(r.errOut, "Go on? [y/N]: ")
	answer, _ := bufio.NewReader(r.in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errors.New("not confirmed")
	}
	return nil
}

// one changes a Pod, and confirms the change. It returns false when the
// Pod failed, and the run must stop.
func (r *runner) one(ctx context.Context, pr *podRun) bool {
	res, err := r.patcher.apply(ctx, pr.pod, r.container, r.change, pr.template, false)
	if err != nil {
		c := causeOf(err)
		if c.skip != "" {
			pr.result, pr.reason = resultSkipped, c.skip
			r.printPod(pr)
			return true
		}
		pr.result, pr.reason = resultFailed, c.text
		r.report(pr, c)
		return false
	}
	pr.pod, pr.stored = res.read, res.stored
	if !res.changed {
		pr.result = resultUnchanged
		r.printPod(pr)
		return true
	}
	pr.result = resultChanged
	r.printPod(pr)
	if r.waiter == nil {
		return true
	}
	confirmed, err := r.waiter.confirm(ctx, res.read, res.stored, pr.container)
	var gone *podGoneError
	switch {
	case errors.As(err, &gone):
		pr.result, pr.reason = resultSkipped, "changed, then "+gone.reason
		r.warnf("pod/%s: changed, then %s\n", pr.pod.Name, gone.reason)
		return true
	case err != nil:
		pr.result, pr.reason = resultFailed, "changed, but "+err.Error()
		r.report(pr, cause{text: pr.reason})
		r.undo(ctx, pr)
		return false
	}
	r.warnf("pod/%s: %s\n", pr.pod.Name, confirmed)
	return true
}

// undo puts back the probes of a Pod whose change failed, with
// --undo-on-failure, and otherwise prints the command that does.
func (r *runner) undo(ctx context.Context, pr *podRun) {
	ch := undoChange{original: pr.pod, changed: pr.stored}
	if !r.undoOnFailure {
		back, _, err := modify(pr.stored, pr.container, ch, nil)
		if err != nil {
			return
		}
		patch, err := podPatch(pr.stored, back, false)
		if err != nil || patch == nil {
			return
		}
		r.warnf("to undo it: kubectl patch pod %s -n %s -p '%s' (or run with --undo-on-failure)\n", pr.pod.Name, pr.pod.Namespace, patch)
		return
	}
	res, err := r.patcher.apply(ctx, pr.stored, pr.container, ch, nil, false)
	if err != nil {
		r.warnf("error: pod/%s: undoing the change: %v\n", pr.pod.Name, err)
		return
	}
	pr.stored = res.stored
	pr.reason += "; undone"
	r.warnf("pod/%s: undone: its probes are as they were before\n", pr.pod.Name)
}

// report prints the error of one Pod, and a hint at its likely cause.
func (r *runner) report(pr *podRun, c cause) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.errOut, "error: pod/%s: %s\n", pr.pod.Name, c.text)
	if c.hint != "" {
		fmt.Fprintf(r.errOut, "hint: %s\n", c.hint)
	}
}

func (r *runner) warnf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.errOut, format, args...)
}

// printPod prints a Pod's result as -o asks, as it is known: -o json and
// yaml print every result at the end instead.
func (r *runner) printPod(pr *podRun) {
	suffix := ""
	switch r.dryRun {
	case "client":
		suffix = " (dry run)"
	case "server":
		suffix = " (server dry run)"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name := "pod/" + pr.pod.Name
	switch {
	case r.output == "json" || r.output == "yaml":
	case pr.result == resultSkipped && r.output == "name":
		fmt.Fprintf(r.errOut, "%s skipped: %s\n", name, pr.reason)
	case pr.result == resultSkipped:
		fmt.Fprintf(r.out, "%s skipped: %s\n", name, pr.reason)
	case r.output == "name":
		fmt.Fprintln(r.out, name)
	case pr.result == resultChanged:
		fmt.Fprintf(r.out, "%s %s%s\n", name, r.operation, suffix)
	case pr.result == resultUnchanged:
		fmt.Fprintf(r.out, "%s unchanged%s\n", name, suffix)
	}
}

// resultList is what -o json and -o yaml print: a List of the results.
type resultList struct {
	metav1.TypeMeta `json:",inline"`
	Items           []podResult `json:"items"`
}

// podResult is the result of a run for one Pod.
type podResult struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        resultMeta `json:"metadata"`
	// Result is changed, unchanged, skipped or failed.
	Result result `json:"result"`
	Reason string `json:"reason,omitempty"`
	// Container is the container that the change was for.
	Container string `json:"container,omitempty"`
	// Generation is the Pod's generation after the change.
	Generation int64 `json:"generation,omitempty"`
	// Probes are the container's probes after the run, or as a dry run
	// would leave them.
	Probes map[probeType]*v1.Probe `json:"probes,omitempty"`
}

type resultMeta struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	UID       types.UID `json:"uid"`
}

// resultGroupVersion is the apiVersion of the objects that kubectl probe
// prints, which are not stored anywhere.
const resultGroupVersion = "probe.kep-6318.example/v1alpha1"

// printResults prints the List of results for -o json and -o yaml.
func (r *runner) printResults(runs []*podRun) {
	if r.output != "json" && r.output != "yaml" {
		return
	}
	results := resultList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: []podResult{}}
	for _, pr := range runs {
		item := podResult{
			TypeMeta:  metav1.TypeMeta{APIVersion: resultGroupVersion, Kind: "PodProbeResult"},
			Metadata:  resultMeta{Name: pr.pod.Name, Namespace: pr.pod.Namespace, UID: pr.pod.UID},
			Result:    pr.result,
			Reason:    pr.reason,
			Container: pr.container,
		}
		if pr.result == resultFailed && item.Reason == "" {
			item.Reason = pr.cause.text
		}
		final := pr.stored
		if final == nil {
			final = pr.pod
		}
		item.Generation = final.Generation
		if pr.container != "" {
			item.Probes = probesOf(final, pr.container)
		}
		results.Items = append(results.Items, item)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := printList(r.out, r.output, results); err != nil {
		fmt.Fprintf(r.errOut, "error: %v\n", err)
	}
}

// printList prints a List as JSON or YAML, as kubectl prints one.
func printList(w io.Writer, format string, list any) error {
	data, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	if format == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	} else {
		data = append(data, '\n')
	}
	_, err = w.Write(data)
	return err
}
