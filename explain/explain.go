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

	"github.com/cmdai/cmdai/search"
)

// Verdict is what the index says of a command or a word.
type Verdict string

// The verdicts. A command is Known (the index documents it), NotInstalled
// or Undocumented; a word is Known (a documented option), UnknownOption,
// Operand (not an option: a file, a pattern, an option's value) or
// Undocumented (its command has no option records to judge it by: never
// a guess).
const (
	Known         Verdict = "known"
	UnknownOption Verdict = "unknown option"
	NotInstalled  Verdict = "not installed"
	Undocumented  Verdict = "undocumented"
	Operand       Verdict = "operand"
)

// Lookup returns one command's documentation from the index
// (search.Searcher.Docs, or a running serve's): an error wrapping
// search.ErrUnknownCommand when the index holds no such command.
type Lookup func(ctx context.Context, command string) (search.CommandDoc, error)

// Options tune Explain.
type Options struct {
	// OnPath reports whether a command the index does not hold is on this
	// machine's PATH (Undocumented rather than NotInstalled). Nil: the
	// index alone decides (an imported index of another machine).
	OnPath func(command string) bool
}

// Word is one word of a command's arguments.
type Word struct {
	Text  string `json:"text"`
	Start int    `json:"start"` // byte offsets in the line
	End   int    `json:"end"`
	// Verdict is this word's; an option's value (the "ARCHIVE" of -f
	// ARCHIVE) is an Operand whose Of names the option.
	Verdict Verdict `json:"verdict"`
	// Option is the documented flag the word matched, as the page spells
	// it ("--extract" for -x in -xzvf; "--regexp" for --reg); OptionID
	// the option record's id; Help its text.
	Option   string `json:"option,omitempty"`
	OptionID string `json:"option_id,omitempty"`
	Help     string `json:"help,omitempty"`
	// Of is the option a value belongs to.
	Of string `json:"of,omitempty"`
	// Flags are the words' parts when it is a cluster of short options
	// (-xzvf): one entry each, in order.
	Flags []Word `json:"flags,omitempty"`
	// Note says why, where the verdict needs it ("abbreviation of
	// --regexp", "no such option in tar(1)", "a value of -C").
	Note string `json:"note,omitempty"`
}

// Command is one command of the line, as run (after the wrappers).
type Command struct {
	// Name is the command as the index knows it ("git-commit" for git
	// commit); Words are its arguments, the subcommand word included.
	Name    string  `json:"command"`
	Verdict Verdict `json:"verdict"`
	// Page is the man page that judges it ("tar(1)"); Summary its
	// one-line description.
	Page    string `json:"page,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Via are the wrappers it runs under, outermost first ("sudo", "xargs").
	Via   []string `json:"via,omitempty"`
	Start int      `json:"start"`
	End   int      `json:"end"`
	Words []Word   `json:"words"`
	Note  string   `json:"note,omitempty"`
}

// Result is a whole line explained.
type Result struct {
	Line     string    `json:"line"`
	Commands []Command `json:"commands"`
	// UnknownCount counts the words that are UnknownOption,
	// NotInstalledCount the commands that are NotInstalled; OK is both 0
	// (what --check exits on).
	UnknownCount      int  `json:"unknown_count"`
	NotInstalledCount int  `json:"not_installed_count"`
	OK                bool `json:"ok"`
}

// MaxLine is the longest line Explain takes (bytes).
const MaxLine = 64 << 10
