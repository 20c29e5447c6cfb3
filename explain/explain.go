// Package explain checks a shell command line against the documentation
// the index holds of the installed commands: it parses the line with a
// real shell parser (mvdan.cc/sh/v3/syntax), finds every command in it
// (pipelines, lists, subshells, command substitutions, through wrappers
// such as sudo, env, xargs, time, nice and timeout, and into subcommands
// whose pages exist: git commit -> git-commit(1)), and gives each word a
// verdict from the command's option records: a documented option (with
// its text), an option the installed command does not document, an
// operand, or nothing to judge by. It reads the index only (through a
// Lookup), never a man page, and needs no model.
package explain

import (
	"context"

	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/search"
)

// Lookup returns one command's documentation from the index
// (search.Searcher.Docs, or a running serve's): an error wrapping
// search.ErrUnknownCommand when the index holds no such command.
type Lookup func(ctx context.Context, command string) (search.CommandDoc, error)

// Options tune Explain.
type Options struct {
	// OnPath reports whether a command the index does not hold is on this
	// machine's PATH (judge.Undocumented rather than judge.NotInstalled). Nil: the
	// index alone decides (an imported index of another machine).
	OnPath func(command string) bool
}

// Command is one command of the line, as run (after the wrappers).
type Command struct {
	// Name is the command as the index knows it ("git-commit" for git
	// commit); Words are its arguments, the subcommand word included.
	Name    string        `json:"command"`
	Verdict judge.Verdict `json:"verdict"`
	// Page is the man page that judges it ("tar(1)"); Summary its
	// one-line description.
	Page    string `json:"page,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Via are the wrappers it runs under, outermost first ("sudo", "xargs").
	Via   []string     `json:"via,omitempty"`
	Start int          `json:"start"`
	End   int          `json:"end"`
	Words []judge.Word `json:"words"`
	Note  string       `json:"note,omitempty"`
}

// Result is a whole line explained.
type Result struct {
	Line     string    `json:"line"`
	Commands []Command `json:"commands"`
	// UnknownCount counts the words that are judge.UnknownOption,
	// NotInstalledCount the commands that are judge.NotInstalled; OK is both 0
	// (what --check exits on).
	UnknownCount      int  `json:"unknown_count"`
	NotInstalledCount int  `json:"not_installed_count"`
	OK                bool `json:"ok"`
}
