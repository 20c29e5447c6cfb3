package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/scripts/bench/explainbench/mutate"
)

// The causes a miss is put under. An unknown option is read against
// the installed page (man -P cat): absent there, the page truly lacks it;
// present, explain missed it (a gap of the parser or of the records).
const (
	causeNotOnPage     = "not on the installed page (BSD-only, another version's, or invented)"
	causeOnPageNoRec   = "on the installed page, not matched to a record"
	causeValueAsOption = "a value taken as an option (the option before it takes one)"
	causeSubcommand    = "after a subcommand with no page of its own (not judged)"
	causeSubNotIndexed = "after a subcommand whose page is installed but not indexed, not being on PATH (not judged)"
	causeAmbiguous     = "ambiguous abbreviation (not judged)"
	causeNegation      = "--no-X negation the page does not spell out (not judged)"
	causeRunTime       = "option name expanded at run time (not judged)"
	causeWrapperOwn    = "wrapper option not on its page, known to explain (not judged)"
	causeTooFew        = "page documents too few options (not judged)"
	causeNoManPage     = "unknown option, no man page to read (not checked)"
)

func causeOfUndocumented(note string) string {
	switch {
	case strings.Contains(note, "expanded at run time"):
		return causeRunTime
	case strings.Contains(note, "after the subcommand"):
		return causeSubcommand
	case strings.Contains(note, "ambiguous abbreviation"):
		return causeAmbiguous
	case strings.Contains(note, "the negation of"):
		return causeNegation
	case strings.Contains(note, "read as"):
		return causeWrapperOwn
	case strings.Contains(note, "too few options"):
		return causeTooFew
	}
	return "undocumented: " + note
}

// missOf names why unit u of word w (command c) is not a known option.
func (b *bench) missOf(c explain.Command, u, w judge.Word) miss {
	m := miss{Command: c.Name, Page: c.Page, Word: w.Text, Flag: flagOf(u.Text), Verdict: string(u.Verdict), Note: u.Note}
	if u.Verdict != judge.UnknownOption {
		m.Cause = causeOfUndocumented(u.Note)
		if m.Cause == causeSubcommand && b.o.man && b.subPageInstalled(c.Name, u.Note) {
			m.Cause = causeSubNotIndexed
		}
		return m
	}
	if !b.o.man {
		m.Cause = causeNoManPage
		return m
	}
	page := b.page(c.Page)
	switch {
	case page == "":
		m.Cause = causeNoManPage
	case mutate.OnPage(page, m.Flag):
		m.Cause = causeOnPageNoRec
	case valueAfterOption(c, w):
		m.Cause = causeValueAsOption
	default:
		m.Cause = causeNotOnPage
	}
	return m
}

var afterSub = regexp.MustCompile(`after the subcommand (?:\(or operand\) )?([a-z][a-z0-9-]*)`)

// subPageInstalled: man has a page CMD-SUB (git-log) for the subcommand
// the note names.
func (b *bench) subPageInstalled(cmd, note string) bool {
	m := afterSub.FindStringSubmatch(note)
	if m == nil {
		return false
	}
	key := "\x00w:" + cmd + "-" + m[1]
	if v, ok := b.pages[key]; ok {
		return v != ""
	}
	out, err := exec.Command("man", "-w", cmd+"-"+m[1]).Output()
	v := ""
	if err == nil {
		v = strings.TrimSpace(string(out))
	}
	b.pages[key] = v
	return v != ""
}

// valueAfterOption: the word before w is an option whose page entry
// shows an argument but which explain read as taking none (so w, a value
// such as head -n -5's "-5", was judged as an option). Only when the
// flagged word is a number or starts like one.
func valueAfterOption(c explain.Command, w judge.Word) bool {
	if len(w.Text) < 2 || !(w.Text[1] >= '0' && w.Text[1] <= '9') {
		return false
	}
	for i, x := range c.Words {
		if x.Start == w.Start && i > 0 {
			p := c.Words[i-1]
			return p.Verdict == judge.Known && strings.HasPrefix(p.Text, "-")
		}
	}
	return false
}

// page is the installed man page named "tar(1)" as `man -P cat` prints
// it, its hyphens plain ("" when man has none).
func (b *bench) page(name string) string {
	if p, ok := b.pages[name]; ok {
		return p
	}
	cmd, sect := name, ""
	if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		cmd, sect = name[:i], name[i+1:len(name)-1]
	}
	args := []string{"-P", "cat"}
	if sect != "" {
		args = append(args, sect)
	}
	args = append(args, cmd)
	x := exec.Command("man", args...)
	x.Env = append(os.Environ(), "MANWIDTH=250", "MAN_KEEP_FORMATTING=", "LC_ALL=C.UTF-8")
	out, err := x.Output()
	p := ""
	if err == nil {
		p = mutate.PlainPage(string(out))
	}
	b.pages[name] = p
	return p
}
