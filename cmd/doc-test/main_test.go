package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const guide = "# A guide\n" +
	"\n" +
	"<!-- test-docs: file pod.yaml -->\n" +
	"```yaml\n" +
	"kind: Pod\n" +
	"```\n" +
	"\n" +
	"1. Look at it:\n" +
	"\n" +
	"   ```sh\n" +
	"   cat pod.yaml; echo 'pod   age'; echo 'api   12s'\n" +
	"   ```\n" +
	"\n" +
	"   It prints:\n" +
	"\n" +
	"   <!-- test-docs: vary \\d+s -->\n" +
	"   ```\n" +
	"   kind: Pod\n" +
	"   pod age\n" +
	"   api 5s\n" +
	"   ```\n" +
	"\n" +
	"<!-- test-docs: setup\n" +
	"touch ready\n" +
	"-->\n" +
	"\n" +
	"<!-- test-docs: fails -->\n" +
	"```sh\n" +
	"test -e ready && echo 'Error from server' >&2 && false\n" +
	"```\n" +
	"\n" +
	"```\n" +
	"Error from server\n" +
	"```\n" +
	"\n" +
	"<!-- test-docs: illustration -->\n" +
	"```json\n" +
	"{}\n" +
	"```\n"

func TestParse(t *testing.T) {
	steps, err := parse(guide)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.kind.String())
	}
	want := "file run compare setup run compare illustration"
	if strings.Join(got, " ") != want {
		t.Fatalf("steps %v, want %s", got, want)
	}
	if steps[0].name != "pod.yaml" || steps[0].text != "kind: Pod\n" {
		t.Errorf("file step %+v", steps[0])
	}
	if steps[1].text != "cat pod.yaml; echo 'pod   age'; echo 'api   12s'\n" {
		t.Errorf("an indented block keeps its own text: %q", steps[1].text)
	}
	if len(steps[2].vary) != 1 || !steps[4].fails || steps[3].text != "touch ready\n" {
		t.Errorf("directives not applied: %+v", steps)
	}
}

func TestParseErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"yaml without a directive":                 "```yaml\nkind: Pod\n```\n",
		"output without a command":                 "```\nhello\n```\n",
		"two outputs for one command":              "```sh\necho\n```\n```\n\n```\n```\n\n```\n",
		"unknown directive":                        "<!-- test-docs: skip -->\n```sh\necho\n```\n",
		"directive not before a block":             "<!-- test-docs: fails -->\nsome prose\n```sh\nfalse\n```\n",
		"fails on an output":                       "```sh\necho\n```\n<!-- test-docs: fails -->\n```\n\n```\n",
		"vary on a command":                        "<!-- test-docs: vary x -->\n```sh\necho\n```\n",
		"a bad pattern":                            "```sh\necho\n```\n<!-- test-docs: vary ( -->\n```\n\n```\n",
		"a file name with a path":                  "<!-- test-docs: file ../x -->\n```yaml\n\n```\n",
		"an unclosed block":                        "```sh\necho\n",
		"an unclosed setup":                        "<!-- test-docs: setup\necho\n",
		"a dangling directive":                     "```sh\necho\n```\n<!-- test-docs: fails -->\n",
		"a setup between a command and its output": "```sh\necho\n```\n<!-- test-docs: setup\ntrue\n-->\n```\n\n```\n",
	} {
		if _, err := parse(doc); err == nil {
			t.Errorf("%s: parsed without an error", name)
		}
	}
}

func runGuide(t *testing.T, doc string) error {
	t.Helper()
	steps, err := parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{dir: t.TempDir(), timeout: time.Minute, log: io.Discard, guide: "guide.md"}
	err = r.runAll(steps)
	if err == nil {
		if _, statErr := os.Stat(filepath.Join(r.dir, "ready")); statErr != nil {
			t.Errorf("the setup script did not run: %v", statErr)
		}
	}
	return err
}

func TestRun(t *testing.T) {
	if err := runGuide(t, guide); err != nil {
		t.Fatal(err)
	}
}

// Each change to a command or to the output a guide shows makes the run fail.
func TestRunFails(t *testing.T) {
	for name, change := range map[string][2]string{
		"changed output":          {"pod age\n", "pod status\n"},
		"changed command":         {"echo 'pod   age'", "echo 'pod   status'"},
		"a varying part unmarked": {"<!-- test-docs: vary \\d+s -->\n", ""},
		"a rejection that passes": {"&& false", "&& true"},
		"a command that fails":    {"cat pod.yaml", "cat pod.json"},
		"a file not written":      {"<!-- test-docs: file pod.yaml -->", "<!-- test-docs: illustration -->"},
	} {
		doc := strings.Replace(guide, change[0], change[1], 1)
		if doc == guide {
			t.Fatalf("%s: the change does not apply to the guide", name)
		}
		if err := runGuide(t, doc); err == nil {
			t.Errorf("%s: the guide still passes", name)
		}
	}
}

func TestNormalize(t *testing.T) {
	got := normalize("\nNAME    AGE   \nweb-1   3m2s\n\n", nil)
	if got != "NAME AGE\nweb-1 3m2s" {
		t.Errorf("normalize: %q", got)
	}
}

// The guide's blocks and setup scripts run through the shell command.
func TestShell(t *testing.T) {
	steps, err := parse("<!-- test-docs: setup\ntest -n \"${IN_SHELL:-}\"\n-->\n```sh\necho \"in ${IN_SHELL:-no} shell\"\n```\n```\nin the shell\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{dir: t.TempDir(), timeout: time.Minute, log: io.Discard, guide: "guide.md", shell: []string{"env", "IN_SHELL=the"}}
	if err := r.runAll(steps); err != nil {
		t.Fatal(err)
	}
}
