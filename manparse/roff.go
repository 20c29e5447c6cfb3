package manparse

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits that keep a hostile or broken page from hanging or exhausting the
// parser. Real pages stay far below them (the largest Debian page has about
// 60,000 lines).
const (
	maxInputBytes = 16 << 20
	maxSteps      = 2_000_000 // lines processed, counting macro expansion
	maxCallDepth  = 24
	// maxTextBytes stops a page whose text lines have expanded past it
	// (a macro that calls itself twice makes megabytes of a few bytes);
	// the largest real pages render to well under 1 MB of text.
	maxTextBytes = 4 << 20
)

// ErrNotRoff is returned for input that has no roff structure at all.
var ErrNotRoff = errors.New("not a man page: no .TH, .Dt or section macro found")

// ErrTooLarge is returned for input over the parser's size limit.
var ErrTooLarge = fmt.Errorf("man page source over %d MiB", maxInputBytes>>20)

// roff is a small troff interpreter: enough of the language (strings,
// registers, conditionals, macro definitions, escapes) to read what real man
// pages do, feeding text and structure to a builder. It never executes
// anything outside itself: .so, .pso, .sy and friends are ignored.
type roff struct {
	strs   map[string]string
	regs   map[string]int
	macros map[string][]string
	args   [][]string // macro arguments, innermost call last
	ie     []bool     // results of .ie waiting for their .el
	steps  int
	// textBytes counts the text lines' bytes so far (maxTextBytes).
	textBytes int
	// cut says why the run stopped before the page's end ("": it did
	// not): Page.Cut.
	cut    string
	depth  int
	b      *builder
	mdoc   *mdocState
	format string // "man" or "mdoc", fixed by the first title macro
	tbl    *tblState
	eqn    bool
	link   string // target of an open .UR or .MT
}

func newRoff() *roff {
	r := &roff{
		strs:   map[string]string{},
		regs:   map[string]int{},
		macros: map[string][]string{},
		b:      newBuilder(),
	}
	// What groff's man and mdoc packages predefine for a terminal, so that
	// pages testing for them (grep's "\w|\*(lq|") take groff's branch.
	for k, v := range map[string]string{
		"lq": "“", "rq": "”", "la": "⟨", "ra": "⟩", "R": "®", "Tm": "™", "S": "", "HF": "B",
		"Lq": "“", "Rq": "”", "aq": "'", "q": "\"", "Am": "&", "Ba": "|", "Ge": "≥", "Le": "≤",
		"Gt": ">", "Lt": "<", "Pi": "π", "Ne": "≠", "Na": "NaN", "If": "∞", "Pm": "±", "Ap": "'",
		"ua": "↑", "ga": "`", "ti": "~", "Px": "POSIX", "Ai": "ANSI",
	} {
		r.strs[k] = v
	}
	for k, v := range map[string]int{".g": 1, ".T": 0, ".H": 24, ".V": 40, "LL": 78 * 24, ".l": 78 * 24, "IN": 7 * 24, ".U": 0, ".x": 1, ".y": 22, ".Y": 4} {
		r.regs[k] = v
	}
	return r
}

func (r *roff) reg(name string) int { return r.regs[name] }

func (r *roff) macroArg(name string) string {
	if len(r.args) == 0 {
		return ""
	}
	args := r.args[len(r.args)-1]
	switch name {
	case "*":
		return strings.Join(args, " ")
	case "@":
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = `"` + a + `"`
		}
		return strings.Join(q, " ")
	case "#":
		return fmt.Sprint(len(args))
	case "0":
		return ""
	}
	n := 0
	for _, c := range name {
		if c < '0' || c > '9' {
			return ""
		}
		n = n*10 + int(c-'0')
		if n > 1000 {
			return ""
		}
	}
	if n >= 1 && n <= len(args) {
		return args[n-1]
	}
	return ""
}

// splitLines splits source into input lines, joining lines that end in an
// escaped newline.
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	raw := strings.Split(s, "\n")
	out := make([]string, 0, len(raw))
	var cont strings.Builder
	joining := false
	for _, l := range raw {
		if endsWithEscapedNewline(l) {
			cont.WriteString(l[:len(l)-1])
			joining = true
			continue
		}
		if joining {
			cont.WriteString(l)
			out = append(out, cont.String())
			cont.Reset()
			joining = false
			continue
		}
		out = append(out, l)
	}
	if joining {
		out = append(out, cont.String())
	}
	return out
}

// endsWithEscapedNewline reports a trailing backslash that is not itself
// escaped (an odd run of backslashes).
func endsWithEscapedNewline(l string) bool {
	n := 0
	for i := len(l) - 1; i >= 0 && l[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// run interprets lines until they end or the step budget runs out.
func (r *roff) run(lines []string) {
	for i := 0; i < len(lines); i++ {
		r.steps++
		if r.steps > maxSteps || r.textBytes > maxTextBytes {
			if r.cut == "" && r.steps > maxSteps {
				r.cut = fmt.Sprintf("it took over %d steps to read (lines, counting macro expansions)", maxSteps)
			} else if r.cut == "" {
				r.cut = fmt.Sprintf("its text passed %d MiB", maxTextBytes>>20)
			}
			return
		}
		i = r.line(lines, i)
	}
}

// line interprets lines[i] and returns the index of the last line it
// consumed (definitions and skipped blocks consume several).
func (r *roff) line(lines []string, i int) int {
	l := lines[i]
	if r.tbl != nil {
		if r.tblLine(l) {
			return i
		}
	}
	if r.eqn {
		if isRequest(l, "EN") {
			r.eqn = false
		}
		return i
	}
	if len(l) > 0 && (l[0] == '.' || l[0] == '\'') {
		return r.request(lines, i, l[1:])
	}
	r.text(l)
	return i
}

func isRequest(l, name string) bool {
	if len(l) == 0 || (l[0] != '.' && l[0] != '\'') {
		return false
	}
	f := strings.Fields(l[1:])
	return len(f) > 0 && f[0] == name
}

// text handles a text line.
func (r *roff) text(l string) {
	t := r.expand(l)
	r.textBytes += len(t)
	r.b.text(t, true)
}

// request handles a control line (without its leading . or ').
func (r *roff) request(lines []string, i int, l string) int {
	l = strings.TrimLeft(l, " \t")
	if strings.HasPrefix(l, `\"`) || strings.HasPrefix(l, `\#`) || l == "" {
		return i
	}
	name, rest := splitName(l)
	switch name {
	case "if":
		return r.conditional(lines, i, rest, false, false)
	case "ie":
		return r.conditional(lines, i, rest, true, false)
	case "el":
		ok := false
		if n := len(r.ie); n > 0 {
			ok = !r.ie[n-1]
			r.ie = r.ie[:n-1]
		}
		return r.body(lines, i, strings.TrimLeft(rest, " \t"), ok)
	case "while":
		// Loops are not run: no man page needs one to render its text, and
		// a loop is the one way a page could make us spin.
		_, body := r.condition(rest)
		return r.body(lines, i, body, false)
	case "de", "de1", "am", "am1", "dei", "ami":
		return r.define(lines, i, name, rest)
	case "ig":
		end := ".."
		if a := parseArgs(rest); len(a) > 0 {
			end = "." + a[0]
		}
		for j := i + 1; j < len(lines); j++ {
			if isEndMacro(lines[j], end[1:]) {
				return j
			}
		}
		return len(lines) - 1
	case "ds", "ds1", "as", "as1":
		n, v := splitName(strings.TrimLeft(rest, " \t"))
		v = strings.TrimLeft(v, " \t")
		v = strings.TrimPrefix(v, `"`)
		v = r.copyMode(v)
		if strings.HasPrefix(name, "as") {
			v = r.strs[n] + v
		}
		if n != "" && len(v) < maxLineBytes {
			r.strs[n] = v
		}
		return i
	case "nr":
		a := parseArgs(rest)
		if len(a) >= 2 {
			expr := r.expand(a[1])
			cur := r.regs[a[0]]
			switch {
			case strings.HasPrefix(expr, "+"):
				r.regs[a[0]] = cur + evalNum(expr[1:])
			case strings.HasPrefix(expr, "-"):
				r.regs[a[0]] = cur - evalNum(expr[1:])
			default:
				r.regs[a[0]] = evalNum(expr)
			}
		}
		return i
	case "rr":
		for _, a := range parseArgs(rest) {
			delete(r.regs, a)
		}
		return i
	case "rm":
		for _, a := range parseArgs(rest) {
			delete(r.strs, a)
			delete(r.macros, a)
		}
		return i
	case "rn":
		if a := parseArgs(rest); len(a) >= 2 {
			if m, ok := r.macros[a[0]]; ok {
				r.macros[a[1]] = m
				delete(r.macros, a[0])
			}
			if s, ok := r.strs[a[0]]; ok {
				r.strs[a[1]] = s
				delete(r.strs, a[0])
			}
		}
		return i
	case "als":
		if a := parseArgs(rest); len(a) >= 2 {
			if m, ok := r.macros[a[1]]; ok {
				r.macros[a[0]] = m
			}
			if s, ok := r.strs[a[1]]; ok {
				r.strs[a[0]] = s
			}
		}
		return i
	case "do":
		return r.request(lines, i, rest)
	case "nop":
		r.text(strings.TrimLeft(rest, " \t"))
		return i
	case "TS":
		r.tbl = &tblState{}
		r.b.breakLine()
		return i
	case "EQ":
		r.eqn = true
		return i
	}
	if body, ok := r.macros[name]; ok && !r.builtin(name) {
		if r.depth < maxCallDepth {
			r.call(body, parseArgs(rest))
		}
		return i
	}
	r.dispatch(name, rest)
	return i
}

// splitName splits a request line into its name and the rest. Names end at
// a blank; groff also ends them at an escape (".el\{").
func splitName(l string) (string, string) {
	for k := 0; k < len(l); k++ {
		if l[k] == ' ' || l[k] == '\t' {
			return l[:k], l[k:]
		}
		if l[k] == '\\' && k > 0 {
			return l[:k], l[k:]
		}
	}
	return l, ""
}

// call runs a user-defined macro with its arguments.
func (r *roff) call(body []string, args []string) {
	r.args = append(r.args, args)
	r.depth++
	r.run(body)
	r.depth--
	r.args = r.args[:len(r.args)-1]
}

// define reads a .de/.am definition.
func (r *roff) define(lines []string, i int, req, rest string) int {
	a := parseArgs(rest)
	end := ".."
	if len(a) >= 2 {
		end = "." + a[1]
	}
	var body []string
	j := i + 1
	for ; j < len(lines); j++ {
		if isEndMacro(lines[j], end[1:]) {
			break
		}
		// copy mode: \\ stands for one backslash in the stored body
		body = append(body, strings.ReplaceAll(lines[j], `\\`, `\`))
	}
	if len(a) == 0 {
		return j
	}
	if strings.HasPrefix(req, "am") {
		r.macros[a[0]] = append(r.macros[a[0]], body...)
	} else {
		r.macros[a[0]] = body
	}
	return j
}

// isEndMacro reports the line that ends a definition or .ig block: a
// control character, optional blanks, then the end name ("." by default).
func isEndMacro(l, name string) bool {
	if len(l) == 0 || (l[0] != '.' && l[0] != '\'') {
		return false
	}
	t := strings.TrimLeft(l[1:], " \t")
	if !strings.HasPrefix(t, name) {
		return false
	}
	t = t[len(name):]
	return t == "" || t[0] == ' ' || t[0] == '\t' || strings.HasPrefix(t, `\"`)
}

// copyMode interpolates strings, registers and macro arguments as .ds does
// when it reads its value, and drops a trailing comment.
func (r *roff) copyMode(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '"', '#':
			return b.String()
		case '\\':
			b.WriteByte('\\')
			i++
		case '$', '*', 'n':
			out, n, _ := r.escape(s, i, 0)
			b.WriteString(out)
			i += n - 1
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// conditional handles .if and .ie.
func (r *roff) conditional(lines []string, i int, rest string, isIE, _ bool) int {
	ok, body := r.condition(rest)
	if isIE {
		r.ie = append(r.ie, ok)
	}
	return r.body(lines, i, body, ok)
}

// body runs or skips a conditional's body, which may open a \{ block that
// spans lines.
func (r *roff) body(lines []string, i int, body string, run bool) int {
	body = strings.TrimLeft(body, " \t")
	braced := strings.HasPrefix(body, `\{`)
	if !run {
		if !braced {
			return i
		}
		depth := braceBalance(body)
		for j := i + 1; j < len(lines) && depth > 0; j++ {
			depth += braceBalance(lines[j])
			i = j
		}
		return i
	}
	if braced {
		body = strings.TrimLeft(body[2:], " \t")
	}
	if body == "" {
		return i
	}
	if body[0] == '.' || body[0] == '\'' {
		return r.request(lines, i, body[1:])
	}
	if strings.HasPrefix(body, `\}`) {
		return i
	}
	r.text(body)
	return i
}

// braceBalance counts \{ minus \} on a line, ignoring escaped backslashes.
func braceBalance(l string) int {
	n := 0
	for k := 0; k+1 < len(l); k++ {
		if l[k] != '\\' {
			continue
		}
		switch l[k+1] {
		case '{':
			n++
		case '}':
			n--
		}
		k++
	}
	return n
}

// condition evaluates a conditional's test and returns the body after it.
func (r *roff) condition(s string) (bool, string) {
	s = strings.TrimLeft(s, " \t")
	neg := false
	for strings.HasPrefix(s, "!") {
		neg = !neg
		s = s[1:]
	}
	if s == "" {
		return false, ""
	}
	var ok bool
	c := s[0]
	switch {
	case (c == 'n' || c == 't' || c == 'o' || c == 'e' || c == 'v') && (len(s) == 1 || !isAlnum(s[1])):
		ok = c == 'n' || c == 'o'
		s = s[1:]
	case (c == 'd' || c == 'r' || c == 'c' || c == 'm' || c == 'F' || c == 'S') && len(s) > 1 && (s[1] == ' ' || s[1] == '\t'):
		f := strings.Fields(s[1:])
		name := ""
		if len(f) > 0 {
			name = f[0]
		}
		switch c {
		case 'd':
			_, ok1 := r.strs[name]
			_, ok2 := r.macros[name]
			ok = ok1 || ok2 || r.builtin(name)
		case 'r':
			_, ok = r.regs[name]
		case 'c':
			ok = true
		}
		s = strings.TrimLeft(s[1:], " \t")
		s = s[len(name):]
	case c == '\'' || c == '"' || c == '|' || c == '/' || c == '#' || c == '@' || c == '^':
		// 'string1'string2'
		a, n1 := readDelimited(s, 0)
		rest := s[n1-1:]
		b, n2 := readDelimited(rest, 0)
		ok = r.expand(a) == r.expand(b)
		s = rest[n2:]
	default:
		end := exprEnd(s)
		ok = evalNum(r.expand(s[:end])) > 0
		s = s[end:]
	}
	if neg {
		ok = !ok
	}
	return ok, s
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// exprEnd finds where a numeric expression ends: at a blank outside
// escapes, or at the start of a \{ body.
func exprEnd(s string) int {
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case ' ', '\t':
			return k
		case '\\':
			if k+1 < len(s) && (s[k+1] == '{' || s[k+1] == '}') {
				return k
			}
			if k+1 < len(s) {
				switch s[k+1] {
				case 'w', 'A', 'B':
					_, l := readDelimited(s, k+2)
					k += 1 + l
				case 'n':
					j := k + 2
					if j < len(s) && (s[j] == '+' || s[j] == '-') {
						j++
					}
					_, l := readName(s, j)
					k = j + l - 1
				case '*', '$':
					_, l := readName(s, k+2)
					k += 1 + l
				default:
					k++
				}
			}
		}
	}
	return len(s)
}

// evalNum evaluates a troff numeric expression: left to right, no
// precedence, units ignored, comparisons giving 1 or 0.
func evalNum(s string) int {
	v, _ := evalExpr(s, 0, 0)
	return v
}

func evalExpr(s string, i, depth int) (int, int) {
	acc, i := evalTerm(s, i, depth)
	for i < len(s) {
		op := ""
		for _, o := range []string{"<=", ">=", "==", "!=", "<>", "<?", ">?", "<", ">", "=", "+", "-", "*", "/", "%", "&", ":"} {
			if strings.HasPrefix(s[i:], o) {
				op = o
				break
			}
		}
		if op == "" {
			return acc, i
		}
		var v int
		v, i = evalTerm(s, i+len(op), depth)
		switch op {
		case "+":
			acc += v
		case "-":
			acc -= v
		case "*":
			acc *= v
		case "/":
			if v != 0 {
				acc /= v
			}
		case "%":
			if v != 0 {
				acc %= v
			}
		case "<":
			acc = b2i(acc < v)
		case ">":
			acc = b2i(acc > v)
		case "<=":
			acc = b2i(acc <= v)
		case ">=":
			acc = b2i(acc >= v)
		case "=", "==":
			acc = b2i(acc == v)
		case "!=", "<>":
			acc = b2i(acc != v)
		case "&":
			acc = b2i(acc > 0 && v > 0)
		case ":":
			acc = b2i(acc > 0 || v > 0)
		case "<?":
			acc = min(acc, v)
		case ">?":
			acc = max(acc, v)
		}
	}
	return acc, i
}

func evalTerm(s string, i, depth int) (int, int) {
	if i >= len(s) {
		return 0, i
	}
	switch s[i] {
	case '-':
		v, j := evalTerm(s, i+1, depth)
		return -v, j
	case '+':
		return evalTerm(s, i+1, depth)
	case '!':
		v, j := evalTerm(s, i+1, depth)
		return b2i(v <= 0), j
	case '(':
		if depth > 32 {
			return 0, len(s)
		}
		v, j := evalExpr(s, i+1, depth+1)
		if j < len(s) && s[j] == ')' {
			j++
		}
		return v, j
	}
	v := 0
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		if v < 1<<40 {
			v = v*10 + int(s[j]-'0')
		}
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	if j < len(s) && strings.IndexByte("uicpPmnvMsfz", s[j]) >= 0 {
		j++
	}
	if j == i {
		// not a number: skip one character so evaluation always advances
		_, sz := utf8.DecodeRuneInString(s[i:])
		return 0, i + sz
	}
	return v, j
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseArgs splits macro arguments the way troff does: blanks separate,
// double quotes group, "" inside quotes is a literal quote, and escapes
// (including an escaped blank) never split.
func parseArgs(s string) []string {
	var args []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return args
		}
		if strings.HasPrefix(s[i:], `\"`) || strings.HasPrefix(s[i:], `\#`) {
			return args
		}
		var b strings.Builder
		if s[i] == '"' {
			i++
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				if s[i] == '\\' && i+1 < len(s) {
					b.WriteString(s[i : i+2])
					i += 2
					continue
				}
				b.WriteByte(s[i])
				i++
			}
			args = append(args, b.String())
			continue
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			if s[i] == '\\' && i+1 < len(s) {
				if s[i+1] == '"' {
					// a comment ends the arguments
					args = append(args, b.String())
					return trimEmptyTail(args)
				}
				b.WriteString(s[i : i+2])
				i += 2
				continue
			}
			b.WriteByte(s[i])
			i++
		}
		args = append(args, b.String())
	}
}

func trimEmptyTail(a []string) []string {
	for len(a) > 0 && a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	return a
}

// Parse reads man(7) or mdoc(7) source and returns the structured page. It
// never panics on any input and stops within fixed time and memory limits.
func Parse(src []byte) (*Page, error) {
	if len(src) > maxInputBytes {
		return nil, ErrTooLarge
	}
	if !bytes.ContainsAny(src, ".'") {
		return nil, ErrNotRoff
	}
	r := newRoff()
	r.run(splitLines(src))
	p := r.finish()
	if p.Title == "" && len(p.Sections) == 0 {
		return nil, ErrNotRoff
	}
	if r.cut != "" {
		p.Cut = "cut: " + r.cut + ", and the rest was not read"
	}
	return p, nil
}
