package explain

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/cmdai/cmdai/explain/judge"
	"mvdan.cc/sh/v3/syntax"
)

// The limits of one Explain call. A line is what a person or an agent
// types (NL2Bash's deepest nests 3 levels, its longest answer is a few
// KB); the limits leave a wide margin over that and keep a hostile line
// from costing more than a small, fixed amount of memory and output.
const (
	// MaxLine is the longest line Explain takes (bytes).
	MaxLine = 64 << 10
	// MaxNesting is how deeply commands may nest in a line: command and
	// process substitutions, subshells, braces, if/while/for/case bodies
	// and functions, each level one.
	MaxNesting = 64
	// MaxAnswer bounds a Result's size as JSON (bytes, estimated before
	// anything is encoded): every documented option's text comes with
	// it, so a line of a thousand -l is a long answer.
	MaxAnswer = 4 << 20
	// maxQuoted is how much of a word's text is kept where the word holds
	// commands of its own (a $(...) or <(...) reported as commands
	// themselves), or is quoted in another word's note: no byte of the
	// line is repeated more than a fixed number of times.
	maxQuoted = 64
)

// ErrTooBig is what the errors of a line over a limit are (and
// ErrBadLine too): longer than MaxLine, nested deeper than MaxNesting, or
// whose answer would be over MaxAnswer. Front doors answer it as a
// request too large (HTTP 413, exit 2).
var ErrTooBig = errors.New("command line over a limit")

// limitError is a line over a limit: ErrBadLine and ErrTooBig.
type limitError struct{ msg string }

func (e *limitError) Error() string { return ErrBadLine.Error() + ": " + e.msg }

func (e *limitError) Is(target error) bool { return target == ErrBadLine || target == ErrTooBig }

func tooBig(format string, a ...any) error {
	return &limitError{msg: fmt.Sprintf(format, a...)}
}

// checkNesting refuses a line whose commands nest deeper than
// MaxNesting. Pipelines and lists (a && b && c) are no nesting.
func checkNesting(f *syntax.File) error {
	var stack []bool
	depth, over := 0, false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch {
		case over:
			return false // the error is the same however deep
		case n == nil:
			if stack[len(stack)-1] {
				depth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		nests := false
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Subshell, *syntax.Block, *syntax.IfClause,
			*syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl:
			nests = true
			depth++
		}
		if depth > MaxNesting {
			over = true
			return false
		}
		stack = append(stack, nests)
		return true
	})
	if over {
		return tooBig("commands nest more than %d deep ($(...), <(...), subshells, braces, if/while/for bodies): split the line into simpler ones", MaxNesting)
	}
	return nil
}

// holdsCommands: a word with a command or process substitution in it,
// whose commands are reported on their own.
func holdsCommands(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// quoted is s cut to maxQuoted bytes (at a rune's start) with "..."
// after it: a word's text where it repeats text reported elsewhere.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// answerSize estimates r's size as JSON: its strings and a fixed cost per
// field, a little under what encoding gives (escapes), so an answer is
// judged before it takes any memory to encode.
func answerSize(r *Result) int {
	const perCommand, perWord = 120, 70
	n := 100 + len(r.Line)
	for i := range r.Commands {
		c := &r.Commands[i]
		n += perCommand + len(c.Name) + len(c.Page) + len(c.Summary) + len(c.Note)
		for _, v := range c.Via {
			n += len(v) + 3
		}
		n += wordsSize(c.Words, perWord)
		if n > MaxAnswer {
			return n
		}
	}
	return n
}

func wordsSize(ws []judge.Word, perWord int) int {
	n := 0
	for i := range ws {
		w := &ws[i]
		n += perWord + len(w.Text) + len(w.Option) + len(w.OptionID) + len(w.Help) + len(w.Of) + len(w.Note)
		n += wordsSize(w.Flags, perWord)
	}
	return n
}
