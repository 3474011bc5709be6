package main

import (
	"errors"
	"strings"
	"testing"
)

func TestShellPlan_RefusedShapes(t *testing.T) {
	t.Parallel()
	for _, shape := range refusedShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileShellPlan(shape.command)
			var refusal *shellRefusal
			if !errors.As(err, &refusal) || !strings.Contains(err.Error(), shape.context) {
				t.Fatalf("compile %q: %v, want a refusal naming %q", shape.command, err, shape.context)
			}
			if !strings.Contains(err.Error(), "; ") || refusal.line < 1 {
				t.Errorf("refusal %q (line %d) lacks advice or a line", err, refusal.line)
			}
		})
	}
}

// The refusal says what to do instead, and on which line of the command.
func TestShellPlan_RefusalMessage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, command string
		wantLine      int
		want          string
	}{
		{"here-document", "set -e\ncat <<EOF\n{{ dag_run.conf.x }}\nEOF", 3,
			`{{ dag_run.conf.x }} inside a here-document: a value from a request would be read as shell text; ` +
				`pass it through env instead (env: {X: "{{ dag_run.conf.x }}"}) and write "$X"`},
		{"command name", "{{ dag_run.conf.x }} a", 1,
			`{{ dag_run.conf.x }} as the command name: a value from a request would choose the program to run; name the program in the DAG file`},
		{"bash -c", "echo hi\n\nbash -c \"echo {{ params.x }}\"", 3,
			`{{ params.x }} as an argument of bash, which reads its arguments as code: a value from a request would be read as code; ` +
				`pass it through env instead (env: {X: "{{ params.x }}"}) and let the program read X from its environment ("$X" in bash -c '...')`},
		{"unparseable", "echo ok\necho \"{{ run_id }}", 2,
			`does not parse as bash (line 2 of the command: reached EOF without closing quote `},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileShellPlan(tc.command)
			var refusal *shellRefusal
			if !errors.As(err, &refusal) {
				t.Fatalf("compile %q: %v, want a refusal", tc.command, err)
			}
			if refusal.line != tc.wantLine || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("refusal at line %d: %q\nwant line %d: %q", refusal.line, err, tc.wantLine, tc.want)
			}
		})
	}
}
