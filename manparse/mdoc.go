package manparse

import (
	"strings"
)

// mdocState holds what mdoc(7) rendering remembers across lines.
type mdocState struct {
	r     *roff
	name  string     // the first .Nm, repeated by later bare .Nm calls
	lists []listKind // open .Bl lists, innermost last
	sec   string
}

type listKind struct {
	typ string
}

// Macro classes: callable macros can appear as arguments of other macros.
const (
	mdBlock = 1 + iota
	mdCallable
)

var mdocMacros = func() map[string]int {
	m := map[string]int{}
	for _, n := range strings.Fields("Dd Dt Os Sh Ss Pp Lp Bl El It Bd Ed D1 Dl Nd Rs Re Bf Ef Bk Ek Sm Ex Rv Lb In Fd Ft Fo Fc Cd Db Tg Hf Ud Ot Bt Es En") {
		m[n] = mdBlock
	}
	for _, n := range strings.Fields("Ad An Ap Ar At Bc Bo Bq Brc Bro Brq Bsx Bx Cm Dc Do Dq Dv Dx Ec Em Eo Er Ev Fa Fl Fn Fr Fx Ic Li Lk Ms Mt Nm No Ns Nx Oc Oo Op Ox Pa Pc Pf Po Pq Qc Ql Qo Qq Sc So Sq St Sx Sy Ta Tn Ux Va Vt Xc Xo Xr Ao Ac Aq %A %B %C %D %I %J %N %O %P %Q %R %T %U %V") {
		m[n] = mdCallable
	}
	return m
}()

// enclosures are the macros that wrap the rest of their line.
var enclosures = map[string][2]string{
	"Op": {"[", "]"}, "Dq": {"“", "”"}, "Sq": {"‘", "’"}, "Qq": {`"`, `"`}, "Pq": {"(", ")"},
	"Bq": {"[", "]"}, "Brq": {"{", "}"}, "Aq": {"⟨", "⟩"}, "Ql": {"‘", "’"},
}

var openers = map[string]string{"Oo": "[", "Do": "“", "So": "‘", "Qo": `"`, "Po": "(", "Bo": "[", "Bro": "{", "Ao": "⟨"}
var closers = map[string]string{"Oc": "]", "Dc": "”", "Sc": "’", "Qc": `"`, "Pc": ")", "Bc": "]", "Brc": "}", "Ac": "⟩"}

var bsdNames = map[string]string{"Bx": "BSD", "Fx": "FreeBSD", "Nx": "NetBSD", "Ox": "OpenBSD", "Dx": "DragonFly", "Bsx": "BSD/OS", "Ux": "UNIX"}

var standards = map[string]string{
	"-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)", "-p1003.1-2001": "IEEE Std 1003.1-2001 (“POSIX.1”)",
	"-p1003.1-2004": "IEEE Std 1003.1-2004 (“POSIX.1”)", "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)",
	"-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)", "-p1003.1-88": "IEEE Std 1003.1-1988 (“POSIX.1”)",
	"-p1003.1-90": "ISO/IEC 9945-1:1990 (“POSIX.1”)", "-p1003.2-92": "IEEE Std 1003.2-1992 (“POSIX.2”)",
	"-ansiC": "ANSI X3.159-1989 (“ANSI C89”)", "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
	"-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)", "-isoC-2011": "ISO/IEC 9899:2011 (“ISO C11”)",
	"-xpg4": "X/Open Portability Guide Issue 4 (“XPG4”)", "-susv2": "Version 2 of the Single UNIX Specification (“SUSv2”)",
	"-susv3": "Version 3 of the Single UNIX Specification (“SUSv3”)", "-susv4": "Version 4 of the Single UNIX Specification (“SUSv4”)",
	"-svid4": "System V Interface Definition, Fourth Edition (“SVID4”)", "-ieee754": "IEEE Std 754-1985",
	"-iso8601": "ISO 8601", "-iso8802-3": "ISO 8802-3: 1989",
}

type piece struct {
	s         string
	glue      bool // no blank before this piece
	glueAfter bool // no blank after this piece
}

func isCloseDelim(t string) bool {
	switch t {
	case ".", ",", ";", ":", "?", "!", ")", "]":
		return true
	}
	return false
}

func isOpenDelim(t string) bool { return t == "(" || t == "[" }

func (m *mdocState) callable(t string) bool { return mdocMacros[t] == mdCallable }

// line renders macro arguments (a parsed, not yet decoded, token list).
func (m *mdocState) line(toks []string) []piece {
	var out []piece
	for i := 0; i < len(toks); {
		if m.callable(toks[i]) {
			var p []piece
			p, i = m.call(toks[i], toks, i+1)
			out = append(out, p...)
			continue
		}
		out = append(out, m.plain(toks[i]))
		i++
	}
	return out
}

func (m *mdocState) plain(t string) piece {
	switch {
	case isCloseDelim(t):
		return piece{s: t, glue: true}
	case isOpenDelim(t):
		return piece{s: t, glueAfter: true}
	}
	return piece{s: m.r.expand(t)}
}

// argsUntilMacro returns the tokens from j up to the next callable macro or
// delimiter.
func (m *mdocState) argsUntilMacro(toks []string, j int) ([]string, int) {
	k := j
	for k < len(toks) && !m.callable(toks[k]) && !isCloseDelim(toks[k]) && !isOpenDelim(toks[k]) {
		k++
	}
	return toks[j:k], k
}

// call renders one callable macro starting at toks[j] (its first argument)
// and returns where rendering continues.
func (m *mdocState) call(name string, toks []string, j int) ([]piece, int) {
	if enc, ok := enclosures[name]; ok {
		end := len(toks)
		for end > j && isCloseDelim(toks[end-1]) {
			end--
		}
		out := []piece{{s: enc[0], glueAfter: true}}
		out = append(out, m.line(toks[j:end])...)
		out = append(out, piece{s: enc[1], glue: true})
		for _, t := range toks[end:] {
			out = append(out, m.plain(t))
		}
		return out, len(toks)
	}
	if o, ok := openers[name]; ok {
		return []piece{{s: o, glueAfter: true}}, j
	}
	if c, ok := closers[name]; ok {
		return []piece{{s: c, glue: true}}, j
	}
	switch name {
	case "Fl":
		return m.flags(toks, j)
	case "Ar":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) == 0 {
			return []piece{{s: "file ..."}}, k
		}
		return m.plains(args), k
	case "Xr":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) >= 2 {
			out := []piece{{s: m.r.expand(args[0]) + "(" + m.r.expand(args[1]) + ")"}}
			return append(out, m.plains(args[2:])...), k
		}
		return m.plains(args), k
	case "Ns":
		return []piece{{s: "", glue: true, glueAfter: true}}, j
	case "Ap":
		return []piece{{s: "'", glue: true, glueAfter: true}}, j
	case "Pf":
		if j < len(toks) {
			return []piece{{s: m.r.expand(toks[j]), glueAfter: true}}, j + 1
		}
		return nil, j
	case "Nm":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) == 0 {
			return []piece{{s: m.name}}, k
		}
		if m.name == "" {
			m.name = m.r.expand(args[0])
		}
		return m.plains(args), k
	case "Fn":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) == 0 {
			return nil, k
		}
		ex := make([]string, len(args))
		for i, a := range args {
			ex[i] = m.r.expand(a)
		}
		return []piece{{s: ex[0] + "(" + strings.Join(ex[1:], ", ") + ")"}}, k
	case "St":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) == 0 {
			return nil, k
		}
		s, ok := standards[args[0]]
		if !ok {
			s = strings.TrimPrefix(args[0], "-")
		}
		return append([]piece{{s: s}}, m.plains(args[1:])...), k
	case "At":
		args, k := m.argsUntilMacro(toks, j)
		s := "AT&T UNIX"
		if len(args) > 0 {
			v := strings.TrimPrefix(args[0], "v")
			s = "Version " + v + " AT&T UNIX"
		}
		return []piece{{s: s}}, k
	case "Bx", "Fx", "Nx", "Ox", "Dx", "Bsx", "Ux":
		args, k := m.argsUntilMacro(toks, j)
		s := bsdNames[name]
		if len(args) > 0 {
			if name == "Bx" {
				s = m.r.expand(args[0]) + "BSD"
				if len(args) > 1 {
					s += "-" + m.r.expand(args[1])
				}
			} else {
				s += " " + m.r.expand(args[0])
			}
		}
		return []piece{{s: s}}, k
	case "Lk":
		args, k := m.argsUntilMacro(toks, j)
		if len(args) == 0 {
			return nil, k
		}
		if len(args) == 1 {
			return []piece{{s: m.r.expand(args[0])}}, k
		}
		return []piece{{s: strings.Join(m.expandAll(args[1:]), " ") + ":"}, {s: m.r.expand(args[0])}}, k
	case "Ta":
		return []piece{{s: "\t", glue: true, glueAfter: true}}, j
	case "Xo", "Xc", "Es", "En":
		return nil, j
	}
	// every other callable macro prints its arguments as they are
	args, k := m.argsUntilMacro(toks, j)
	return m.plains(args), k
}

// flags renders .Fl from toks[j] on. A bare .Fl before another macro is
// glued to it, as mandoc does (".Fl Fl gzip" is "--gzip"), and the flag
// goes on after a delimiter (".Fl c , -count" is "-c, --count"): both are
// how mdoc pages write an option's second spelling.
func (m *mdocState) flags(toks []string, j int) ([]piece, int) {
	args, k := m.argsUntilMacro(toks, j)
	if len(args) == 0 {
		return []piece{{s: "-", glueAfter: k < len(toks) && m.callable(toks[k])}}, k
	}
	var out []piece
	for {
		for _, a := range args {
			out = append(out, piece{s: "-" + m.r.expand(a)})
		}
		d := k
		for d < len(toks) && isCloseDelim(toks[d]) {
			d++
		}
		if d == k || d == len(toks) || m.callable(toks[d]) || isOpenDelim(toks[d]) {
			return out, k
		}
		for _, t := range toks[k:d] {
			out = append(out, m.plain(t))
		}
		args, k = m.argsUntilMacro(toks, d)
	}
}

func (m *mdocState) plains(args []string) []piece {
	out := make([]piece, len(args))
	for i, a := range args {
		out[i] = piece{s: m.r.expand(a)}
	}
	return out
}

func (m *mdocState) expandAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = m.r.expand(a)
	}
	return out
}

// join lays pieces out with single blanks, honouring glue.
func join(ps []piece) string {
	var b strings.Builder
	glueNext := true
	for _, p := range ps {
		if !glueNext && !p.glue && p.s != "" {
			b.WriteByte(' ')
		}
		b.WriteString(p.s)
		if p.s != "" || p.glueAfter {
			glueNext = p.glueAfter
		}
	}
	return b.String()
}

// macro handles one mdoc macro line.
func (m *mdocState) macro(name, rest string) {
	r, b := m.r, m.r.b
	toks := parseArgs(rest)
	switch name {
	case "Dd":
		b.page.Date = strings.Join(r.expandArgs(toks), " ")
	case "Dt":
		a := r.expandArgs(toks)
		if len(a) > 0 {
			b.page.Title = a[0]
		}
		if len(a) > 1 {
			b.page.Section = a[1]
		}
	case "Os":
		b.page.Source = strings.Join(r.expandArgs(toks), " ")
	case "Sh":
		t := join(m.line(toks))
		b.section(t)
		m.sec = normTitle(t)
		m.lists = m.lists[:0]
	case "Ss":
		b.subsection(join(m.line(toks)))
		m.lists = m.lists[:0]
	case "Pp", "Lp":
		b.paragraph()
	case "Nd":
		b.text("- "+join(m.line(toks)), false)
	case "Bl":
		typ := "tag"
		for _, t := range toks {
			switch t {
			case "-tag", "-hang", "-ohang", "-inset", "-diag", "-bullet", "-dash", "-hyphen", "-enum", "-item", "-column":
				typ = t[1:]
			}
		}
		m.lists = append(m.lists, listKind{typ: typ})
		b.indent(1)
	case "El":
		if len(m.lists) > 0 {
			m.lists = m.lists[:len(m.lists)-1]
			b.indent(-1)
		}
	case "It":
		typ := "tag"
		if len(m.lists) > 0 {
			typ = m.lists[len(m.lists)-1].typ
		}
		switch typ {
		case "bullet", "dash", "hyphen", "enum", "item":
			b.tagged("•", b.depth)
			if len(toks) > 0 {
				b.text(join(m.line(toks)), false)
			}
		case "column":
			b.flush()
			b.open(b.continuesItem(b.depth))
			b.text(strings.ReplaceAll(join(m.line(toks)), "\t", " "), false)
		default:
			tag := join(m.line(toks))
			if tag == "" {
				tag = " "
			}
			b.tagged(tag, b.depth)
		}
	case "Bd":
		b.paragraph()
		for _, t := range toks {
			if t == "-literal" || t == "-unfilled" {
				b.setFill(false)
			}
		}
	case "Ed":
		b.setFill(true)
		b.paragraph()
	case "D1", "Dl":
		b.paragraph()
		if name == "Dl" {
			b.setFill(false)
		}
		b.text(join(m.line(toks)), false)
		b.setFill(true)
		b.paragraph()
	case "Ex":
		util := m.name
		if a, _ := m.argsUntilMacro(toks, 0); len(a) > 1 {
			util = strings.Join(m.expandAll(a[1:]), ", ")
		}
		b.text("The "+util+" utility exits 0 on success, and >0 if an error occurs.", false)
	case "Rv":
		fn := m.name
		if a, _ := m.argsUntilMacro(toks, 0); len(a) > 1 {
			fn = m.r.expand(a[1])
		}
		b.text("The "+fn+"() function returns the value 0 if successful; otherwise the value -1 is returned and the global variable errno is set to indicate the error.", false)
	case "In":
		if len(toks) > 0 {
			b.text("#include <"+r.expand(toks[0])+">", false)
		}
	case "Fo":
		if len(toks) > 0 {
			b.text(r.expand(toks[0])+"(", false)
			b.noSpace = true
		}
	case "Fc":
		b.noSpace = true
		b.text(")", false)
	case "Lb":
		if len(toks) > 0 {
			b.text("library “"+strings.TrimPrefix(r.expand(toks[0]), "lib")+"”", false)
		}
	case "Rs":
		b.paragraph()
	case "Re":
		b.paragraph()
	case "Bf", "Ef", "Bk", "Ek", "Sm", "Db", "Tg", "Hf", "Ud", "Ot", "Bt":
	case "Nm":
		if m.sec == "SYNOPSIS" && len(b.page.Sections) > 0 {
			b.paragraph()
		}
		fallthrough
	default:
		// a callable macro at the start of a line: render the whole line
		all := toks
		if m.callable(name) {
			all = append([]string{name}, toks...)
		}
		ps := m.line(all)
		s := join(ps)
		glueEnd := len(ps) > 0 && ps[len(ps)-1].glueAfter
		if len(ps) > 0 && ps[0].glue && b.body.Len() > 0 {
			b.noSpace = true
		}
		b.text(s, false)
		if glueEnd {
			b.noSpace = true
		}
	}
}
