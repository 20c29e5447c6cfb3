package manparse

import "strings"

// tblState reads a tbl(1) table (.TS to .TE) and degrades it to text: one
// line per row, cells separated by blanks. Tables carry option lists and
// key bindings in many pages, so their words must not be lost.
type tblState struct {
	tab       string
	inFormat  bool // reading option and format lines
	sawOpts   bool
	textBlock bool // inside T{ ... T}
	row       strings.Builder
}

// tblLine handles one line while a table is open; it reports false for a
// line the interpreter should handle itself (a request inside the table).
func (r *roff) tblLine(l string) bool {
	t := r.tbl
	if isRequest(l, "TE") {
		t.endRow(r)
		r.tbl = nil
		r.b.breakLine()
		return true
	}
	if !t.sawOpts {
		t.sawOpts = true
		t.inFormat = true
		t.tab = "\t"
		if strings.HasSuffix(strings.TrimSpace(l), ";") {
			if k := strings.Index(l, "tab("); k >= 0 && k+5 < len(l) {
				t.tab = l[k+4 : k+5]
			}
			return true
		}
	}
	if t.inFormat {
		if strings.HasSuffix(strings.TrimSpace(l), ".") {
			t.inFormat = false
		}
		return true
	}
	if isRequest(l, "T&") {
		t.inFormat = true
		return true
	}
	if t.textBlock {
		if strings.HasPrefix(l, "T}") {
			t.textBlock = false
			rest := strings.TrimPrefix(l, "T}")
			t.cells(r, rest)
			if !strings.HasSuffix(rest, "T{") {
				t.endRow(r)
			}
			return true
		}
		if len(l) > 0 && (l[0] == '.' || l[0] == '\'') {
			return false
		}
		t.row.WriteString(" ")
		t.row.WriteString(r.expand(l))
		return true
	}
	if len(l) > 0 && (l[0] == '.' || l[0] == '\'') {
		return false
	}
	s := strings.TrimSpace(l)
	if s == "_" || s == "=" || s == "" {
		return true
	}
	if strings.HasSuffix(l, "T{") {
		t.cells(r, strings.TrimSuffix(l, "T{"))
		t.textBlock = true
		return true
	}
	t.cells(r, l)
	t.endRow(r)
	return true
}

func (t *tblState) cells(r *roff, l string) {
	for _, c := range strings.Split(l, t.tab) {
		c = strings.TrimSpace(c)
		if c == "_" || c == "=" || c == `\^` || c == "" {
			continue
		}
		if t.row.Len() > 0 {
			t.row.WriteString(" ")
		}
		t.row.WriteString(r.expand(c))
	}
}

func (t *tblState) endRow(r *roff) {
	if t.row.Len() == 0 {
		return
	}
	r.b.text(t.row.String(), false)
	r.b.breakLine()
	t.row.Reset()
}
