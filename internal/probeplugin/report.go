package probeplugin

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/term"
	"k8s.io/utils/ptr"
)

// reporter is the run's last stage, and prints what the other stages
// decide, as they decide it: each Pod's result on standard output as -o
// asks, everything else on standard error, as kubectl does.
type reporter struct {
	in          io.Reader
	out, errOut io.Writer
	// changed and unchanged print each Pod's result as it is known, by
	// name (without -o, or -o name); list, when set instead, prints the
	// List of every Pod's result at the end (-o json, yaml, jsonpath,
	// go-template, ...).
	changed, unchanged, list printers.ResourcePrinter
	// names is -o name: Pods skipped are said on standard error.
	names bool
	// dryRun is "", "client" or "server".
	dryRun string
	// yes is --yes: confirm goes on without asking.
	yes bool

	mu sync.Mutex // serialises writes to out and errOut
}

// newReporter returns the reporter of a run whose changes do operation
// ("probes set"), printing as flags say.
func newReporter(streams genericiooptions.IOStreams, flags *genericclioptions.PrintFlags, dryRun cmdutil.DryRunStrategy, operation string, yes bool) (*reporter, error) {
	p := &reporter{
		in: streams.In, out: streams.Out, errOut: streams.ErrOut, yes: yes,
		dryRun: map[cmdutil.DryRunStrategy]string{cmdutil.DryRunNone: "", cmdutil.DryRunClient: "client", cmdutil.DryRunServer: "server"}[dryRun],
	}
	toPrinter := func(operation string) (printers.ResourcePrinter, error) {
		// A type setter prints for one printer only.
		flags.WithTypeSetter(scheme.Scheme)
		flags.NamePrintFlags.Operation = operation
		return cmdutil.PrintFlagsWithDryRunStrategy(flags, dryRun).ToPrinter()
	}
	var err error
	switch output := ptr.Deref(flags.OutputFormat, ""); output {
	case "", "name":
		p.names = output == "name"
		if p.changed, err = toPrinter(operation); err != nil {
			return nil, err
		}
		p.unchanged, err = toPrinter("unchanged")
	default:
		p.list, err = flags.ToPrinter()
	}
	return p, err
}

func (p *reporter) warnf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.errOut, format, args...)
}

// nodesUnread warns that the user may not read the Pods' nodes, as a user
// who may read a namespace's Pods and not the cluster's Nodes may not.
func (p *reporter) nodesUnread(err error) {
	p.warnf("warning: cannot read the Pods' nodes, so a Pod on a node that is not Ready is not skipped, and the run would wait on it until --wait-timeout: %v\n", err)
}

// templateUnread warns that the template of a Pod could not be read.
func (p *reporter) templateUnread(pr *podRun, err error) {
	p.warnf("warning: pod/%s: cannot read the template it was created from: %v\n", pr.pod.Name, err)
}

// target says, before the pre-check, where the run works and on what: how
// many Pods (or which one, named) of which workloads, those whose limits
// it keeps to, in which namespace of which context.
func (p *reporter) target(context, namespace string, t *targets) {
	what := pods(len(t.pods))
	if len(t.pods) == 1 && len(t.named) > 0 {
		what = "pod/" + t.pods[0].Name
	}
	var of []string
	for _, w := range t.floors {
		switch {
		case w.floor.within != "":
		case w.floor.name != "":
			of = append(of, w.floor.name)
		case len(of) > 0:
			of = append(of, "no workload")
		}
	}
	if len(of) > 0 {
		what += " of " + joinWords(of)
	}
	where := fmt.Sprintf("in namespace %q", namespace)
	if context != "" {
		where += fmt.Sprintf(" of context %q", context)
	}
	skipped := ""
	if len(t.skipped) > 0 {
		skipped = fmt.Sprintf(" (%d more skipped)", len(t.skipped))
	}
	p.warnf("target: %s %s%s\n", what, where, skipped)
}

// batches says, before the first change, how many Pods the run changes at
// once, the largest batch (largest, the largest limit, at most maxBatch in
// all), and, for each workload whose Pods it counts
// (floors), and each one under it that has a limit of its own, how many of
// them it changes at once and takes out of readiness at once, and why;
// and how many of those that the workload's floor counts are not Ready
// already, which count against that limit.
func (p *reporter) batches(largest, maxBatch int, floors []floor) {
	p.mu.Lock()
	defer p.mu.Unlock()
	describe := func(f floor) string {
		s := f.limit.why
		if notReady := f.of - f.ready; notReady > 0 {
			s += fmt.Sprintf("; not Ready now: %d of the %d Pods that it counts, which count against it; the run's own change first", notReady, f.of)
		}
		return s
	}
	at := fmt.Sprintf("the first Pod alone, then up to %d at a time", min(largest, maxBatch))
	if largest == 1 {
		at = "one Pod at a time"
	}
	if len(floors) == 1 {
		fmt.Fprintf(p.errOut, "batches: %s: %s\n", at, describe(floors[0]))
		return
	}
	head := "the first Pod alone, then of each workload at most its limit at a time, and out of readiness"
	tops, together := 0, 0
	for _, f := range floors {
		if f.within == "" {
			tops++
			together += f.limit.n
		}
	}
	switch {
	case largest == 1 && tops == 1:
		// One workload, and those under it: one Pod at a time.
		head = "one Pod at a time, and of each workload at most its limit out of readiness"
	case together > maxBatch:
		head += fmt.Sprintf(", and at most %d Pods a batch in all", maxBatch)
	}
	fmt.Fprintf(p.errOut, "batches: %s:\n", head)
	for _, f := range floors {
		fmt.Fprintf(p.errOut, "- %s: %d: %s\n", cmp.Or(f.title(), "Pods of no workload"), f.limit.n, describe(f))
	}
}

// interruptedBeforeChanges says that an interrupt ended the run before it
// changed a Pod.
func (p *reporter) interruptedBeforeChanges() {
	p.warnf("error: interrupted: no Pod was changed\n")
}

// proven says what proved a Pod's change.
func (p *reporter) proven(pr *podRun, how string) {
	p.warnf("pod/%s: %s\n", pr.pod.Name, how)
}

// gone says that a Pod was deleted or recreated after its change.
func (p *reporter) gone(pr *podRun, reason string) {
	p.warnf("pod/%s: changed, then %s\n", pr.pod.Name, reason)
}

// undone says that a Pod's change was put back.
func (p *reporter) undone(pr *podRun) {
	p.warnf("pod/%s: undone: its probes are as they were before\n", pr.pod.Name)
}

// undoneAlready says that --undo-on-failure found a Pod's change put back
// by someone else (putBackMeanwhile).
func (p *reporter) undoneAlready(pr *podRun) {
	p.warnf("pod/%s: undone already: someone else put back what this run changed of its probes\n", pr.pod.Name)
}

// notUndone says why --undo-on-failure left a Pod's change, the probes
// staying (see stays), and the command that puts it back anyway.
func (p *reporter) notUndone(pr *podRun, staying map[probeType]string, c *commandLine) {
	p.warnf("pod/%s: not undone: %s%s\n", pr.pod.Name, staysBecause(staying, "its old probes", "the new ones"), anyway(pr, c))
}

// partlyUndone says that --undo-on-failure put back a Pod's change but for
// the probes staying, why they stay (see stays), and the command that puts
// them back anyway.
func (p *reporter) partlyUndone(pr *podRun, staying map[probeType]string, c *commandLine) {
	p.warnf("pod/%s: undone but for %s%s\n", pr.pod.Name, stayingProbes(staying), anyway(pr, c))
}

// anyway returns the end of a line that says what --undo-on-failure left of
// a Pod's change: the command that puts it back anyway.
func anyway(pr *podRun, c *commandLine) string {
	if c.run == "" {
		return ""
	}
	return "; to put it back anyway: " + c.undoPod(pr.pod.Name)
}

// unknown says how to put back the change of a Pod that may have been
// stored (see outcomeUnknownError): the undo of that Pod, which leaves it
// as it is when the change was not stored; for a run of undo, the same
// undo of that Pod, which leaves it as it is when it was put back.
func (p *reporter) unknown(pr *podRun, c *commandLine) {
	switch {
	case c.run != "":
		p.warnf("pod/%s: to put it back, if the change was stored: %s (it leaves the Pod as it is otherwise)\n", pr.pod.Name, c.undoPod(pr.pod.Name))
	case c.undoing != "":
		p.warnf("pod/%s: to put it back, if it was not: %s (it leaves the Pod as it is otherwise)\n", pr.pod.Name, c.finish([]string{"pod/" + pr.pod.Name}))
	}
}

// undoFailed says why a Pod's change could not be put back, or may not
// have been (undoUnknown).
func (p *reporter) undoFailed(pr *podRun, err error) {
	p.warnf("error: pod/%s: undoing the change: %v\n", pr.pod.Name, err)
}

// stillToUndo says, of a Pod whose put-back failed, or may have
// (undoUnknown), the command that puts back what stands of its change: the
// undo of that Pod, which finds nothing to put back when the put-back was
// stored in whole. When the put-back was to leave probes staying (see
// stays), it says so, and that the undo puts them back anyway, as
// notUndone and partlyUndone do. A run of undo prints the undo that
// finishes it instead (commandLine.finishing).
func (p *reporter) stillToUndo(pr *podRun, staying map[probeType]string, c *commandLine) {
	if c.run == "" {
		return
	}
	what, whether := "put it back", ""
	if pr.undoUnknown {
		what, whether = "put back what stands of it", ", whether or not the put-back was stored"
	}
	left := ""
	if len(staying) > 0 {
		left, what = "the put-back was to leave "+stayingProbes(staying)+"; ", what+" anyway"
	}
	p.warnf("pod/%s: %sto %s%s: %s\n", pr.pod.Name, left, what, whether, c.undoPod(pr.pod.Name))
}

// workload says what the Pods that replace the run's get from the
// template of their workload, and, after a run that finished, the change
// of the template that gives them the new probes; and names the Pods that the workload created during
// the run with the template's probes.
func (p *reporter) workload(w workloadAfter, c *commandLine, finished bool) {
	probes, notNew := fmt.Sprintf("its template's %s probe", joinTypes(w.types)), ", not the new one"
	if len(w.types) > 1 {
		probes, notNew = probes+"s", ", not the new ones"
	}
	if w.disabled {
		notNew = ""
	}
	switch {
	case w.patch != "" && !finished:
		// A change that failed its proof, or was interrupted, is not
		// one for the workload's own rollout to make.
		p.warnf("%s: Pods that replace these get %s%s; the run did not finish, so it suggests no change of the template\n", w.name, probes, notNew)
	case w.patch != "":
		p.warnf("%s: Pods that replace these get %s%s; to change the template too, if it has not changed since the run read it (the patch fails otherwise, and changes nothing): %s\n", w.name, probes, notNew, c.patch(w.name, w.patch))
	case w.why != "":
		p.warnf("%s: Pods that replace these get %s%s: %s\n", w.name, probes, notNew, w.why)
	case w.disabled:
		p.warnf("%s: Pods that replace these get %s\n", w.name, probes)
	}
	for _, name := range w.created {
		p.warnf("%s: pod/%s, created during the run, has %s%s: run the command again to change it too\n", w.name, name, probes, notNew)
	}
}

// pod prints a Pod's result as -o asks, as it is known: -o json, yaml and
// the templates print every result at the end instead.
func (p *reporter) pod(pr *podRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	switch {
	case p.list != nil:
	case pr.result == resultSkipped && p.names:
		fmt.Fprintf(p.errOut, "pod/%s skipped: %s\n", pr.pod.Name, pr.reason)
	case pr.result == resultSkipped:
		fmt.Fprintf(p.out, "pod/%s skipped: %s\n", pr.pod.Name, pr.reason)
	case pr.result == resultChanged:
		err = p.changed.PrintObj(pr.pod, p.out)
	case pr.result == resultUnchanged:
		err = p.unchanged.PrintObj(pr.pod, p.out)
	}
	if err != nil {
		fmt.Fprintf(p.errOut, "error: %v\n", err)
	}
}

// failed prints the error of one Pod, and a hint at its likely cause.
func (p *reporter) failed(pr *podRun, c cause) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.errOut, "error: pod/%s: %s\n", pr.pod.Name, c.text)
	if c.hint != "" {
		fmt.Fprintf(p.errOut, "hint: %s\n", c.hint)
	}
}

// refusals prints why the pre-check refused Pods: one line for each cause,
// with the Pods it refused.
func (p *reporter) refusals(active, refused []*podRun) {
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
	if len(active) == 1 {
		p.failed(refused[0], refused[0].cause)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.errOut, "error: the pre-check refused %d of %d Pods; no Pod was changed:\n", len(refused), len(active))
	for _, text := range order {
		prs := byText[text]
		var names []string
		for _, pr := range prs {
			names = append(names, "pod/"+pr.pod.Name)
		}
		fmt.Fprintf(p.errOut, "- %s: %s\n", strings.Join(names, ", "), text)
		if prs[0].cause.hint != "" {
			fmt.Fprintf(p.errOut, "  hint: %s\n", prs[0].cause.hint)
		}
	}
}

// precheck says what the pre-check found, in a line or two; what judges a
// probe that it could not decide on depends on what the run waits for
// after each change (mode, of --wait).
func (p *reporter) precheck(active []*podRun, mode string) {
	var (
		checked   []*podRun
		forbidden []string
	)
	type group struct {
		t               probeType
		handler, answer string
		passed          int
		notTried        map[string]int
		// asBefore counts the answers of a probe that fails now as the
		// one before it does.
		asBefore map[string]int
	}
	var groups []*group
	find := func(t probeType, handler string) *group {
		for _, g := range groups {
			if g.t == t && g.handler == handler {
				return g
			}
		}
		g := &group{t: t, handler: handler, notTried: map[string]int{}, asBefore: map[string]int{}}
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
			case got.asBefore:
				g.asBefore[got.answer]++
			default:
				g.passed++
				g.answer = got.answer
			}
		}
	}
	if len(checked) == 0 || p.dryRun == "client" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	what := "pod/" + checked[0].pod.Name
	if len(checked) > 1 {
		what = fmt.Sprintf("%d Pods", len(checked))
	}
	judge := func(by string) string {
		switch {
		case mode == waitNone:
			// A run without --dry-run would not judge it either.
			return "no wait after the change judges it (--wait=none)"
		case p.dryRun != "":
			return "a run without --dry-run judges it" + by + " after the change, as --wait says"
		case mode == waitApplied:
			return "the proof judges it" + by + " on the Pods that it proves: those of a template until each new probe was proven on one of them, and each Pod whose template is not known (--wait=applied)"
		}
		return "the wait after each change judges it" + by
	}
	fmt.Fprintf(p.errOut, "pre-check: the API server accepts the change to %s (server dry run)\n", what)
	for _, g := range groups {
		if g.passed > 0 {
			on := ""
			if len(checked) > 1 {
				on = " on " + pods(g.passed)
			}
			fmt.Fprintf(p.errOut, "pre-check: the new %s probe succeeds%s: %s: %s\n", g.t, on, g.handler, g.answer)
		}
		for _, answer := range slices.Sorted(maps.Keys(g.asBefore)) {
			fmt.Fprintf(p.errOut, "pre-check: the new %s probe fails now on %s, as the old one does, which asks the same: %s: %s; %s\n", g.t, pods(g.asBefore[answer]), g.handler, answer, judge(" by its failureThreshold"))
		}
		for _, why := range slices.Sorted(maps.Keys(g.notTried)) {
			fmt.Fprintf(p.errOut, "pre-check: the new %s probe was not tried on %s: %s; %s\n", g.t, pods(g.notTried[why]), why, judge(""))
		}
	}
	for _, why := range forbidden {
		fmt.Fprintf(p.errOut, "pre-check: the new probe was not tried: %s; %s\n", why, judge(""))
	}
}

// restores shows what restore puts back: one line for each probe, with the
// Pods it goes back to.
func (p *reporter) restores(active []*podRun) {
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
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, what := range order {
		fmt.Fprintf(p.errOut, "restore: puts back on %s %s\n", strings.Join(names[what], ", "), what)
	}
}

func pods(n int) string {
	if n == 1 {
		return "1 Pod"
	}
	return fmt.Sprintf("%d Pods", n)
}

// confirm prints the warnings, and goes on only with --yes, a dry run, or
// when the user says yes on a terminal.
func (p *reporter) confirm(ctx context.Context, warnings []string) error {
	if len(warnings) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range warnings {
		fmt.Fprintf(p.errOut, "warning: %s\n", w)
	}
	if p.yes || p.dryRun != "" {
		return nil
	}
	if !(term.TTY{In: p.in}).IsTerminalIn() {
		return errors.New("not confirmed: give --yes to go on (there is no terminal to ask on)")
	}
	fmt.Fprint(p.errOut, "Go on? [y/N]: ")
	answers := make(chan string, 1)
	go func() {
		answer, _ := bufio.NewReader(p.in).ReadString('\n')
		answers <- answer
	}()
	select {
	case answer := <-answers:
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return errors.New("not confirmed")
		}
		return nil
	case <-ctx.Done():
		fmt.Fprintln(p.errOut)
		return errors.New("not confirmed: interrupted")
	}
}

// undoHint prints the command that puts back the change of a Pod that
// failed; of a run of undo, which keeps no record of its own for an undo to
// read, how the Pod gets the change of the run that it undoes again.
func (p *reporter) undoHint(pr *podRun, c *commandLine) {
	switch {
	case c.run != "":
		p.warnf("to undo it: %s (or run with --undo-on-failure)\n", c.undoPod(pr.pod.Name))
	case c.undoing != "":
		p.warnf("to give it run %s's change again, make that change again, as its annotation %s keeps it (after): no kubectl probe undo puts back an undo (or run the undo with --undo-on-failure, which gives a Pod whose put-back fails the change back at once, but for the probes that the put-back only relaxed, which stay)\n", c.undoing, lastRunAnnotation)
	}
}

// finished prints the end of a run that stopped at a Pod that failed, or
// that an interrupt ended: which Pods were done, failed, failed and kept
// (a relaxation that --undo-on-failure left, in whole or in part, see
// runner.undo), failed and not put back since someone else changed their
// probes (podRun.leftAlone), or only their record of the run
// (podRun.recordReplaced), put back, skipped during the run (deleted,
// recreated or left as they are) and not started, each Pod of the run's
// changes, each that the pre-check passed, on one of those lists; and the
// command that puts back what the run changed, which leaves those not put
// back as they are too, and puts back the probes that
// --undo-on-failure left, or was to leave, as relaxed (podRun.staying),
// which it says, as each Pod's line does, in words true of each of those
// Pods; or the command that finishes a run of undo.
func (p *reporter) finished(title string, done, failed, putBack, skipped, rest []*podRun, c *commandLine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := slices.DeleteFunc(slices.Clone(failed), func(pr *podRun) bool { return !pr.kept })
	leftAlone := slices.DeleteFunc(slices.Clone(failed), func(pr *podRun) bool { return !pr.leftAlone || pr.recordReplaced })
	replaced := slices.DeleteFunc(slices.Clone(failed), func(pr *podRun) bool { return !pr.recordReplaced })
	others := slices.DeleteFunc(slices.Clone(failed), func(pr *podRun) bool { return pr.kept || pr.leftAlone })
	fmt.Fprintf(p.errOut, "error: %s\ndone (%d): %s\nfailed (%d): %s\n", title, len(done), list(done), len(others), list(others))
	if len(kept) > 0 {
		fmt.Fprintf(p.errOut, "kept, though not proven, in whole or in part, as their old probes would restart the container sooner or keep it out of readiness more (%d): %s\n", len(kept), list(kept))
	}
	if len(leftAlone) > 0 {
		fmt.Fprintf(p.errOut, "not put back, as someone else changed their probes after this run did, which kubectl probe undo leaves as they are too (%d): %s\n", len(leftAlone), list(leftAlone))
	}
	if len(replaced) > 0 {
		fmt.Fprintf(p.errOut, "not put back, as their record of this run was replaced or removed since, though their probes are as this run stored them (%d): %s\n", len(replaced), list(replaced))
	}
	if len(putBack) > 0 {
		fmt.Fprintf(p.errOut, "put back, in flight when interrupted (%d): %s\n", len(putBack), list(putBack))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(p.errOut, "skipped during the run, deleted, recreated or left as they are (%d): %s\n", len(skipped), list(skipped))
	}
	fmt.Fprintf(p.errOut, "not started, left as they are (%d): %s\n", len(rest), list(rest))
	changed := slices.DeleteFunc(slices.Concat(done, failed), func(pr *podRun) bool { return !pr.changed() || pr.leftAlone })
	unknown := slices.DeleteFunc(slices.Clone(failed), func(pr *podRun) bool { return !pr.unknown })
	too := ""
	if relaxed := slices.DeleteFunc(slices.Clone(changed), func(pr *podRun) bool { return len(pr.staying) == 0 }); len(relaxed) > 0 {
		// Words true of each Pod: its own, when the Pods' are the same.
		verb := staysVerb(relaxed[0].staying)
		if slices.ContainsFunc(relaxed, func(pr *podRun) bool { return staysVerb(pr.staying) != verb }) {
			verb = "restart the container sooner or keep it out of readiness more"
		}
		too = fmt.Sprintf(", the relaxed probes of %s too, though their old ones would %s than the new ones", list(relaxed), verb)
	}
	switch {
	case c.run == "":
	case len(unknown) > 0:
		fmt.Fprintf(p.errOut, "to put back the Pods that this run changed, or may have (%d)%s: %s\n", len(changed)+len(unknown), too, c.undo())
	case len(changed) > 0:
		fmt.Fprintf(p.errOut, "to put back the %s that this run changed%s: %s\n", pods(len(changed)), too, c.undo())
	}
	fmt.Fprint(p.errOut, c.finishing())
}

// interrupted says, when the interrupt comes, what the run does about it,
// as it waits on its changes (mode, of --wait), and, in case the user does
// not wait, the command that puts back what it changed, when it changed a
// Pod or may have, or that finishes a run of undo.
func (p *reporter) interrupted(inFlight int, changed, undoing bool, mode string, c *commandLine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	what, done := fmt.Sprintf("the %d in flight are", inFlight), "proven first"
	if inFlight == 1 {
		what = "the Pod in flight is"
	}
	switch {
	case undoing:
		done = "put back, but for probes whose old ones would restart the container sooner or keep it out of readiness more"
	case mode == waitApplied:
		done = "waited on first (--wait=applied)"
	case mode == waitNone:
		done = "patched first, not proven (--wait=none)"
	}
	if inFlight == 0 {
		fmt.Fprintf(p.errOut, "interrupted: no more Pods change; Ctrl-C again quits at once\n")
	} else {
		fmt.Fprintf(p.errOut, "interrupted: no more Pods change, and %s %s; Ctrl-C again quits at once\n", what, done)
	}
	if changed && c.run != "" {
		fmt.Fprintf(p.errOut, "to put back what this run changed: %s\n", c.undo())
	}
	fmt.Fprint(p.errOut, c.finishing())
}

// undoing says which Pods a kubectl probe undo works on.
func (p *reporter) undoing(run string, of, others int) {
	switch {
	case others == 1:
		p.warnf("undo: run %s changed %s of these; the other one is not part of it\n", run, pods(of))
	case others > 1:
		p.warnf("undo: run %s changed %s of these; the %d others are not part of it\n", run, pods(of), others)
	}
}

// commandLine is what the commands that a run prints carry over from the
// command line that started it.
type commandLine struct {
	// targets are the run's TARGETs, or -l SELECTOR.
	targets []string
	// connection are -n NAMESPACE, the context, the kubeconfig file, and
	// the connection and identity flags given: --as, ...
	connection []string
	// kubeconfig lists the kubeconfig files that the run read, as
	// $KUBECONFIG does, when they are several, which --kubeconfig cannot
	// name (see command); goos is the system whose shell the commands are
	// for, runtime.GOOS: "windows" for PowerShell, a POSIX shell's
	// otherwise.
	kubeconfig string
	goos       string
	// flags are the flags given to the run's own command, but -l and --run,
	// which the command that finishes a run of undo carries: --force, ...
	flags []string
	// omitted are the secret flags given to the run, which the commands do
	// not print: --token.
	omitted []string
	// run is the run's ID, for its undo; "" for a run of kubectl probe
	// undo, which prints none.
	run string
	// undoing is, for a run of kubectl probe undo, the run that it puts
	// back: one that stops before the end prints the same undo, which
	// finishes it.
	undoing string
}

// undo returns the command that puts back every Pod of the run.
func (c *commandLine) undo() string {
	return c.undoOf(c.targets, c.run)
}

// undoPod returns the command that puts back one Pod of the run.
func (c *commandLine) undoPod(name string) string {
	return c.undoOf([]string{"pod/" + name}, c.run)
}

// undoOf returns the command that puts back the Pods of targets that run
// changed.
func (c *commandLine) undoOf(targets []string, run string) string {
	return c.command(slices.Concat([]string{"kubectl", "probe", "undo"}, targets, c.connection, []string{"--run", run}))
}

// finishing says the command that finishes a run of undo, the same undo,
// which leaves alone the Pods that it put back already; "" for another
// run.
func (c *commandLine) finishing() string {
	if c.undoing == "" {
		return ""
	}
	return fmt.Sprintf("to finish putting back run %s: %s\n", c.undoing, c.finish(c.targets))
}

// finish returns the undo, with the flags given to it, that puts back the
// Pods of targets that the run of undo did not put back.
func (c *commandLine) finish(targets []string) string {
	return c.command(slices.Concat([]string{"kubectl", "probe", "undo"}, targets, c.connection, c.flags, []string{"--run", c.undoing}))
}

// patch returns the kubectl patch of the object with the JSON patch.
func (c *commandLine) patch(object, patch string) string {
	return c.command(slices.Concat([]string{"kubectl", "patch", object}, c.connection, []string{"--type=json", "-p", patch}))
}

// command returns the command of the words as a shell reads it back, and
// says which secret flags to give again. The kubeconfig files of
// $KUBECONFIG, when there are several, are set in front of it: for the
// command alone, as a POSIX shell reads it, or, on Windows, for the
// PowerShell session, which has no such form.
func (c *commandLine) command(words []string) string {
	command := shellJoin(c.goos, words)
	switch {
	case c.kubeconfig == "":
	case c.goos == "windows":
		// The value of an assignment is an expression, in which a bare
		// word is not a string.
		command = "$env:" + clientcmd.RecommendedConfigPathEnvVar + "='" + strings.ReplaceAll(c.kubeconfig, "'", "''") + "'; " + command
	default:
		command = clientcmd.RecommendedConfigPathEnvVar + "=" + shellJoin(c.goos, []string{c.kubeconfig}) + " " + command
	}
	if len(c.omitted) > 0 {
		command += " # give " + strings.Join(c.omitted, " and ") + " again: it is not printed"
	}
	return command
}

// shellJoin joins the words of a command as the shell of goos reads them
// back: a POSIX shell's, or, on Windows, PowerShell's. A word of letters,
// digits and -_./:=+,@ only is as it is; any other is in single quotes, in
// which a POSIX shell reads a quote written as a quote, a backslash and two
// quotes (the quotes end, an escaped quote, they begin again), and
// PowerShell a quote written twice. PowerShell reads more in a bare word
// than a POSIX shell does, a comma as an array's, and @ at a word's start
// as a splat, and so it quotes words with those too.
func shellJoin(goos string, words []string) string {
	bare := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@"
	if goos == "windows" {
		bare = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+"
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		switch {
		case w != "" && strings.Trim(w, bare) == "":
			quoted[i] = w
		case goos == "windows":
			quoted[i] = "'" + strings.ReplaceAll(w, "'", "''") + "'"
		default:
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// list names the Pods, or says none.
func list(prs []*podRun) string {
	if len(prs) == 0 {
		return "none"
	}
	var names []string
	for _, pr := range prs {
		names = append(names, "pod/"+pr.pod.Name)
	}
	return strings.Join(names, " ")
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
const resultGroupVersion = "kubectl-probe.x-k8s.io/v1alpha1"

// results prints the List of results for -o json, yaml and the
// templates.
func (p *reporter) results(runs []*podRun) {
	if p.list == nil {
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
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := printAs(p.list, p.out, results); err != nil {
		fmt.Fprintf(p.errOut, "error: %v\n", err)
	}
}

// printAs prints v, a value of kubectl probe's own kinds, which are stored
// nowhere, with a printer of cli-runtime, as the object that its JSON is.
func printAs(printer printers.ResourcePrinter, w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, data)
	if err != nil {
		return err
	}
	return printer.PrintObj(obj, w)
}

// relaxationPassesFloor says that the floors, such as held, do not hold
// back a change that only relaxes liveness and startup probes.
func (p *reporter) relaxationPassesFloor(held string) {
	p.warnf("batches: the floors do not hold back a change that only relaxes liveness and startup probes, which restarts no container sooner and takes no Pod out of readiness (%s)\n", held)
}

// waitingForReady says that the run waits for Pods to turn Ready before
// its next batch, and why.
func (p *reporter) waitingForReady(why string) {
	p.warnf("batches: waiting for Pods to turn Ready before the next batch: %s\n", why)
}
