package main

import (
	"fmt"
	"regexp"
	"strings"
)

// kind says what the runner does with a step of a guide.
type kind int

const (
	// run runs an sh block; its output is kept for the next compare.
	run kind = iota
	// setup runs a script that the reader does not see: the part of a
	// story that the guide only describes (an HTML comment).
	setup
	// file writes a block into the working directory under a name.
	file
	// compare compares a block with the output of the last run.
	compare
	// illustration is a block that is not run.
	illustration
)

func (k kind) String() string {
	return [...]string{"run", "setup", "file", "compare", "illustration"}[k]
}

// step is one thing to do, in the guide's order.
type step struct {
	kind kind
	line int    // the line of the block's opening fence
	text string // the block's contents
	// name is the file name of a file step.
	name string
	// fails says that a run must exit non-zero: the guide shows a rejection.
	fails bool
	// vary lists the patterns that a compare ignores.
	vary []*regexp.Regexp
}

const marker = "test-docs:"

// parse reads a Markdown guide into steps. A fenced block is an sh block
// (run), a yaml block (which needs a file or illustration directive), or a
// block without a language (compared with the output of the sh block before
// it). Directives are HTML comments on their own lines before a block:
//
//	<!-- test-docs: file NAME -->     write the block to NAME
//	<!-- test-docs: fails -->         the sh block must exit non-zero
//	<!-- test-docs: vary REGEXP -->   the compare ignores what REGEXP matches
//	<!-- test-docs: illustration -->  the block is not run
//
// and a comment whose first line is "<!-- test-docs: setup" runs the lines
// up to "-->" as a script.
func parse(doc string) ([]step, error) {
	lines := strings.Split(doc, "\n")
	var (
		steps   []step
		pending step // directives for the next block
		have    bool // pending holds at least one directive
		ranYet  bool // a run came before the next output block
		// setupAt is the line of a setup between the last run and the next
		// output block, which would run after the command whose output the
		// block shows.
		setupAt int
	)
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(line, "<!-- "+marker+" setup"):
			var script []string
			start := i + 1
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "-->"; i++ {
				script = append(script, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: setup comment without a closing -->", start)
			}
			steps = append(steps, step{kind: setup, line: start, text: strings.Join(script, "\n") + "\n"})
			if ranYet {
				setupAt = start
			}
		case strings.HasPrefix(line, "<!-- "+marker):
			if !strings.HasSuffix(line, "-->") {
				return nil, fmt.Errorf("line %d: a directive ends on its own line with -->", i+1)
			}
			directive := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "<!-- "+marker), "-->"))
			verb, arg, _ := strings.Cut(directive, " ")
			arg = strings.TrimSpace(arg)
			switch verb {
			case "file":
				if arg == "" || strings.ContainsAny(arg, "/ ") {
					return nil, fmt.Errorf("line %d: file needs a plain file name, got %q", i+1, arg)
				}
				pending.name = arg
			case "fails":
				pending.fails = true
			case "vary":
				re, err := regexp.Compile(arg)
				if err != nil || arg == "" {
					return nil, fmt.Errorf("line %d: vary needs a regular expression: %v", i+1, err)
				}
				pending.vary = append(pending.vary, re)
			case "illustration":
				pending.kind = illustration
			default:
				return nil, fmt.Errorf("line %d: unknown directive %q", i+1, verb)
			}
			have = true
		case strings.HasPrefix(line, "```"):
			lang := strings.TrimSpace(strings.TrimPrefix(line, "```"))
			indent := lines[i][:strings.Index(lines[i], "```")]
			start := i + 1
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				body = append(body, strings.TrimPrefix(lines[i], indent))
			}
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: code block without a closing fence", start)
			}
			s := pending
			s.line, s.text = start, strings.Join(body, "\n")+"\n"
			pending, have = step{}, false
			if err := classify(&s, lang, ranYet); err != nil {
				return nil, fmt.Errorf("line %d: %w", start, err)
			}
			switch s.kind {
			case run:
				ranYet, setupAt = true, 0
			case compare:
				if setupAt != 0 {
					return nil, fmt.Errorf("line %d: the setup at line %d runs after the sh block whose output this block shows; move it before the sh block", start, setupAt)
				}
				ranYet = false
			}
			steps = append(steps, s)
		case have && line != "":
			return nil, fmt.Errorf("line %d: a directive must come right before its block", i)
		}
	}
	if have {
		return nil, fmt.Errorf("a directive at the end of the guide has no block")
	}
	return steps, nil
}

// classify sets the kind of a block from its language and directives.
func classify(s *step, lang string, ranYet bool) error {
	if s.kind == illustration {
		return nil
	}
	switch {
	case s.name != "":
		s.kind = file
	case lang == "sh":
		s.kind = run
	case lang == "":
		if !ranYet {
			return fmt.Errorf("an output block must follow an sh block, or be marked an illustration")
		}
		s.kind = compare
	default:
		return fmt.Errorf("a %q block needs a file or illustration directive", lang)
	}
	if s.fails && s.kind != run {
		return fmt.Errorf("fails applies to an sh block")
	}
	if len(s.vary) > 0 && s.kind != compare {
		return fmt.Errorf("vary applies to an output block")
	}
	return nil
}

var spaces = regexp.MustCompile(`[ \t]+`)

// normalize makes output comparable: what the patterns match becomes "*",
// runs of blanks become one (columns move with the width of their values),
// and blank lines at the ends go.
func normalize(out string, vary []*regexp.Regexp) string {
	for _, re := range vary {
		out = re.ReplaceAllString(out, "*")
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimSpace(spaces.ReplaceAllString(l, " ")))
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}
