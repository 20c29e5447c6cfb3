package explain

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cmdai/cmdai/explain/judge"
	"mvdan.cc/sh/v3/syntax"
)

// ErrBadLine is wrapped by every error about the line itself: empty,
// too long, binary, or not shell the parser can read.
var ErrBadLine = errors.New("bad command line")

// checkLine refuses what is not a command line, before parsing.
func checkLine(line string) error {
	if strings.TrimSpace(line) == "" {
		return fmt.Errorf("%w: the line is empty: give a command, e.g. 'tar -xzvf a.tgz'", ErrBadLine)
	}
	if len(line) > MaxLine {
		return tooBig("the line is %d bytes, more than the %d a command line may have: explain one command line at a time", len(line), MaxLine)
	}
	if !utf8.ValidString(line) {
		return fmt.Errorf("%w: the line is not UTF-8 text (binary bytes?): give a shell command line as text", ErrBadLine)
	}
	for i, r := range line {
		if r == 0 || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return fmt.Errorf("%w: control byte 0x%02x at offset %d: a shell command line is text (binary data pasted?)", ErrBadLine, r, i)
		}
	}
	return nil
}

// parseLine parses the line as bash. A here-document whose body the line
// does not hold (a one-line `ssh host <<'EOF'`) is read as an empty one:
// the body is not a command anyway.
func parseLine(line string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(line), "")
	if err == nil {
		return f, nil
	}
	src := line
	for range 4 {
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			break
		}
		delim, ok := unclosedHeredoc(pe.Text)
		if !ok {
			break
		}
		src += "\n" + delim
		if f, err2 := p.Parse(strings.NewReader(src), ""); err2 == nil {
			return f, nil
		} else {
			err = err2
		}
	}
	return nil, badParse(err)
}

// unclosedHeredoc reads the parser's "unclosed here-document `EOF`".
func unclosedHeredoc(msg string) (string, bool) {
	const pre = "unclosed here-document `"
	i := strings.Index(msg, pre)
	if i < 0 {
		return "", false
	}
	rest := msg[i+len(pre):]
	j := strings.IndexByte(rest, '`')
	if j <= 0 {
		return "", false
	}
	return rest[:j], true
}

func badParse(err error) error {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		hint := "fix the shell syntax there"
		low := strings.ToLower(pe.Text)
		switch {
		case strings.Contains(low, "closing quote"):
			hint = "close the unbalanced quote"
		case strings.Contains(low, "must be followed by a word"):
			hint = "a < or > is a redirection: replace a placeholder such as <file> with a real word, or quote it"
		case strings.Contains(low, "can only"):
			hint = "quote the character, or put it where the shell takes it"
		case pe.Incomplete:
			hint = "the line ends too early: close what it opens"
		}
		return fmt.Errorf("%w: cannot parse it as shell at %d:%d: %s: %s", ErrBadLine, pe.Pos.Line(), pe.Pos.Col(), pe.Text, hint)
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return fmt.Errorf("%w: %v: rewrite it in bash syntax", ErrBadLine, err)
	}
	return fmt.Errorf("%w: cannot parse it as shell: %v", ErrBadLine, err)
}

// wordArg reads a word: its literal value and whether parts of it are only
// known at run time (expansions, command substitutions, globs, braces).
func wordArg(line string, w *syntax.Word) judge.Arg {
	a := judge.Arg{Start: int(w.Pos().Offset()), End: int(w.End().Offset())}
	var b strings.Builder
	dyn := false
	for _, p := range w.Parts {
		if dyn {
			break
		}
		switch p := p.(type) {
		case *syntax.Lit:
			v, stop := unescape(p.Value)
			b.WriteString(v)
			dyn = stop
		case *syntax.SglQuoted:
			if p.Dollar {
				dyn = true
				break
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					dyn = true
					break
				}
				b.WriteString(unescapeDbl(l.Value))
			}
		default:
			dyn = true
		}
	}
	a.Lit, a.Dynamic = b.String(), dyn
	if a.Start >= 0 && a.End <= len(line) && a.Start <= a.End {
		a.Raw = line[a.Start:a.End] == a.Lit && !dyn
	}
	return a
}

// unescape removes an unquoted literal's backslashes; stop reports a
// glob or brace expansion, from where the value is not literal.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case c == '*' || c == '?' || c == '[':
			return b.String(), true
		case c == '{' && braceExpands(s[i:]):
			return b.String(), true
		case c == '~' && i == 0:
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), false
}

// braceExpands: s starts a {a,b} or {1..3} expansion ({} alone is find's).
func braceExpands(s string) bool {
	j := strings.IndexByte(s, '}')
	if j < 0 {
		return false
	}
	in := s[1:j]
	return strings.Contains(in, ",") || strings.Contains(in, "..")
}

func unescapeDbl(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
