package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The charts' shared look: one width, a system sans-serif (no font is
// fetched), text dark on a white ground so that GitHub's dark theme
// shows them as on paper.
const (
	width     = 960
	margin    = 20
	fontStack = "Helvetica, Arial, sans-serif"
	ink       = "#1b1f24"
	faint     = "#57606a"
	grid      = "#d0d7de"
	// noteChars is where a note wraps: about 880 px of 11 px text.
	noteChars = 150
)

// svg builds one chart. Every number is printed by num, so the same
// figures give the same bytes.
type svg struct {
	b bytes.Buffer
}

func newSVG(height int, title string) *svg {
	s := &svg{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" role="img" aria-labelledby="title">`+"\n",
		width, height, width, height, fontStack)
	fmt.Fprintf(&s.b, "<title id=\"title\">%s</title>\n", esc(title))
	fmt.Fprintf(&s.b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height)
	s.text(margin, 28, 16, "start", "bold", ink, title)
	return s
}

func (s *svg) bytes() []byte {
	s.b.WriteString("</svg>\n")
	return s.b.Bytes()
}

// text writes body at (x, y), y being its baseline.
func (s *svg) text(x, y float64, size int, anchor, weight, fill, body string) {
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%d" fill="%s"`, num(x), num(y), size, fill)
	if anchor != "start" {
		fmt.Fprintf(&s.b, ` text-anchor="%s"`, anchor)
	}
	if weight != "" {
		fmt.Fprintf(&s.b, ` font-weight="%s"`, weight)
	}
	fmt.Fprintf(&s.b, ">%s</text>\n", esc(body))
}

func (s *svg) rect(x, y, w, h float64, fill string) {
	fmt.Fprintf(&s.b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n", num(x), num(y), num(w), num(h), fill)
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, w float64) {
	fmt.Fprintf(&s.b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
		num(x1), num(y1), num(x2), num(y2), stroke, num(w))
}

func (s *svg) circle(cx, cy, r float64, fill string) {
	fmt.Fprintf(&s.b, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\"/>\n", num(cx), num(cy), num(r), fill)
}

// notes writes each note from y down, wrapped, and returns the y below.
func (s *svg) notes(y float64, notes []string) float64 {
	for _, n := range notes {
		for _, l := range wrap(n, noteChars) {
			s.text(margin, y, 11, "start", "", faint, l)
			y += 15
		}
	}
	return y
}

// notesHeight is the height notes take.
func notesHeight(notes []string) int {
	n := 0
	for _, note := range notes {
		n += len(wrap(note, noteChars))
	}
	return 15 * n
}

// wrap breaks s at spaces into lines of at most max characters (a longer
// word stays whole).
func wrap(s string, max int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= max:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// num prints a coordinate to a tenth of a pixel, without trailing zeros.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
