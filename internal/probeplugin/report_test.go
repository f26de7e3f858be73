package probeplugin

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// Each Pod's result prints through kubectl's printers: by name as it is
// known, with the operation and the dry run as kubectl says them, or as a
// List at the end for -o json, yaml and the templates.
func TestReportResults(t *testing.T) {
	skipped := &podRun{pod: webPod(), result: resultSkipped, reason: "deleted"}
	changed := &podRun{pod: webPod(), result: resultChanged, container: "app"}
	unchanged := &podRun{pod: webPod(), result: resultUnchanged, container: "app"}
	for _, tc := range []struct {
		output        string
		dryRun        cmdutil.DryRunStrategy
		out, errOut   string
		wantInTheList string
	}{
		{output: "", out: "pod/web skipped: deleted\npod/web probes set\npod/web unchanged\n"},
		{output: "", dryRun: cmdutil.DryRunServer, out: "pod/web skipped: deleted\npod/web probes set (server dry run)\npod/web unchanged (server dry run)\n"},
		{output: "", dryRun: cmdutil.DryRunClient, out: "pod/web skipped: deleted\npod/web probes set (dry run)\npod/web unchanged (dry run)\n"},
		{output: "name", out: "pod/web\npod/web\n", errOut: "pod/web skipped: deleted\n"},
		{output: "jsonpath={range .items[*]}{.result} {end}", out: "skipped changed unchanged "},
		{output: "json", wantInTheList: `"kind": "PodProbeResult"`},
		{output: "yaml", wantInTheList: "  result: unchanged\n"},
	} {
		t.Run(fmt.Sprintf("-o %q, dry run %d", tc.output, tc.dryRun), func(t *testing.T) {
			var out, errOut bytes.Buffer
			flags := genericclioptions.NewPrintFlags("probes set")
			flags.OutputFormat = &tc.output
			r, err := newReporter(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, flags, tc.dryRun, "probes set", false)
			if err != nil {
				t.Fatal(err)
			}
			runs := []*podRun{skipped, changed, unchanged}
			for _, pr := range runs {
				r.pod(pr)
			}
			r.results(runs)
			if tc.wantInTheList != "" {
				if !strings.Contains(out.String(), tc.wantInTheList) || !strings.Contains(out.String(), "List") {
					t.Errorf("printed\n%s\nwant a List with %q in it", out.String(), tc.wantInTheList)
				}
				return
			}
			if out.String() != tc.out || errOut.String() != tc.errOut {
				t.Errorf("printed %q and %q on standard error, want %q and %q", out.String(), errOut.String(), tc.out, tc.errOut)
			}
		})
	}
}
