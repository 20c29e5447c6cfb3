package manparse

import "strings"

// dispatch handles a request or macro that is not a user definition: the
// formatting requests pages use directly, then the man or mdoc macros.
func (r *roff) dispatch(name, rest string) {
	switch name {
	case "br":
		r.b.breakLine()
		return
	case "sp":
		r.b.space()
		return
	case "nf":
		r.b.setFill(false)
		return
	case "fi":
		r.b.setFill(true)
		return
	case "ce", "rj":
		// centred lines are still text; the lines that follow are read as
		// ordinary text lines
		return
	case "TH":
		if r.format == "" {
			r.format = "man"
		}
		a := r.expandArgs(macroArgs(rest))
		p := &r.b.page
		if len(a) > 0 {
			p.Title = a[0]
		}
		if len(a) > 1 {
			p.Section = a[1]
		}
		if len(a) > 2 {
			p.Date = a[2]
		}
		if len(a) > 3 {
			p.Source = a[3]
		}
		if len(a) > 4 {
			p.Manual = a[4]
		}
		return
	case "Dd", "Dt", "Os", "Sh", "Ss":
		if r.format == "" {
			r.format = "mdoc"
		}
	}
	if r.format == "mdoc" || (r.format == "" && mdocMacros[name] != 0) {
		if r.mdoc == nil {
			r.mdoc = &mdocState{r: r}
		}
		if r.format == "" {
			r.format = "mdoc"
		}
		r.mdoc.macro(name, rest)
		return
	}
	r.man(name, rest)
}

func (r *roff) expandArgs(a []string) []string {
	for i := range a {
		a[i] = strings.TrimSpace(r.expand(a[i]))
	}
	return a
}

// man handles the man(7) macros.
func (r *roff) man(name, rest string) {
	b := r.b
	switch name {
	case "SH":
		b.section(strings.Join(r.expandArgs(macroArgs(rest)), " "))
	case "SS":
		b.subsection(strings.Join(r.expandArgs(macroArgs(rest)), " "))
	case "PP", "LP", "P", "HP":
		b.paragraph()
	case "TP":
		b.tagged("", b.depth+1)
	case "TQ":
		b.moreTag()
	case "IP":
		a := r.expandArgs(macroArgs(rest))
		if len(a) > 0 && a[0] != "" {
			b.tagged(a[0], b.depth+1)
			return
		}
		b.indented()
	case "RS":
		b.indent(1)
	case "RE":
		b.indent(-1)
	case "B", "I", "SM", "SB":
		if strings.TrimSpace(rest) == "" {
			return // the next text line is set in the font; nothing to do
		}
		r.b.text(strings.Join(r.expandArgs(macroArgs(rest)), " "), false)
	case "BR", "BI", "IB", "IR", "RB", "RI":
		a := macroArgs(rest)
		for i := range a {
			a[i] = r.expand(a[i])
		}
		r.b.text(strings.Join(a, ""), false)
	case "EX":
		b.setFill(false)
	case "EE":
		b.setFill(true)
	case "UR":
		a := macroArgs(rest)
		r.link = ""
		if len(a) > 0 {
			r.link = r.expand(a[0])
		}
	case "UE", "ME":
		if r.link != "" {
			r.b.text("⟨"+r.link+"⟩"+strings.Join(r.expandArgs(macroArgs(rest)), ""), false)
		}
		r.link = ""
	case "MT":
		a := macroArgs(rest)
		r.link = ""
		if len(a) > 0 {
			r.link = r.expand(a[0])
		}
	case "SY":
		b.paragraph()
		r.b.text(strings.Join(r.expandArgs(macroArgs(rest)), " "), false)
	case "OP":
		a := r.expandArgs(macroArgs(rest))
		r.b.text("["+strings.Join(a, " ")+"]", false)
	case "YS":
		b.paragraph()
	case "Vb":
		// pod2man's verbatim block, when the page does not define it
		b.setFill(false)
	case "Ve":
		b.setFill(true)
	}
}

// builtin reports the macros handled natively in the page's format. A
// page's own definition of one (grep defines UR for old troffs) is ignored:
// our handling renders it better. Definitions of the other format's names
// are kept (old pod2man pages define "Sh").
func (r *roff) builtin(name string) bool {
	switch r.format {
	case "man":
		return manMacro(name)
	case "mdoc":
		return mdocMacros[name] != 0
	}
	return false
}

func manMacro(name string) bool {
	switch name {
	case "TH", "SH", "SS", "PP", "LP", "P", "HP", "TP", "TQ", "IP", "RS", "RE", "B", "I", "SM", "SB",
		"BR", "BI", "IB", "IR", "RB", "RI", "EX", "EE", "UR", "UE", "MT", "ME", "SY", "OP", "YS":
		return true
	}
	return false
}

// macroArgs splits a man macro's arguments as groff reads them, in copy
// mode: an escaped backslash is one backslash, so xargs's
// `.B "\-\-show\\-limits"` sets "--show-limits".
func macroArgs(rest string) []string {
	a := parseArgs(rest)
	for i := range a {
		if strings.Contains(a[i], `\\`) {
			a[i] = strings.ReplaceAll(a[i], `\\`, `\`)
		}
	}
	return a
}
