package termbar

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// lines splits what a terminal was sent into what each redraw shows:
// at \r and \n, escape sequences removed.
func lines(out string) []string {
	return strings.FieldsFunc(ansi.ReplaceAllString(out, ""), func(r rune) bool { return r == '\r' || r == '\n' })
}

// TestLinesFitTheTerminal: at every width, and across a resize, no line
// drawn is wider than the terminal less a column; the longest
// description that fits is chosen, none on a narrow terminal.
func TestLinesFitTheTerminal(t *testing.T) {
	descs := func(i int) []string {
		return []string{
			"indexing: " + strings.Repeat("x", 50) + " chunks embedded",
			"short one",
		}
	}
	for _, widths := range [][]int{{120}, {80}, {40}, {20}, {120, 50}} {
		var out bytes.Buffer
		w := widths[0]
		b := New(&out, func() int { return w })
		var seen []string
		for i := 0; i <= 6; i++ {
			if i == 3 {
				w = widths[len(widths)-1]
			}
			out.Reset()
			b.Set(i*100, 600+i*50, descs(i)...)
			for _, l := range lines(out.String()) {
				if n := utf8.RuneCountInString(l); n > w-1 {
					t.Errorf("widths %v: a line of %d columns at width %d: %q", widths, n, w, l)
				}
				seen = append(seen, l)
			}
			time.Sleep(110 * time.Millisecond) // past the library's throttle
		}
		b.Done()
		all := strings.Join(seen, "\n")
		switch widths[len(widths)-1] {
		case 120:
			if !strings.Contains(all, "indexing: ") || !strings.Contains(all, "%") || !strings.Contains(all, "|") {
				t.Errorf("at 120 columns the long description and the bar should show: %q", all)
			}
		case 80:
			if strings.Contains(all, "indexing: ") || !strings.Contains(all, "short one") {
				t.Errorf("at 80 columns the short description should show: %q", all)
			}
		case 40:
			if strings.Contains(all, "short one") || !strings.Contains(all, "%") {
				t.Errorf("at 40 columns only the bar should show: %q", all)
			}
		}
	}
}

// TestFitWriterCutsLines: each line is cut at the width less one column,
// escape sequences pass, \r and \n start a new line.
func TestFitWriterCutsLines(t *testing.T) {
	var out bytes.Buffer
	f := &fitWriter{w: &out, cols: func() int { return 5 }}
	f.Write([]byte("\rabcdefgh"))
	f.Write([]byte("ij\x1b[2Kkl\nxy\rzzzzzz"))
	if got, want := out.String(), "\rabcd\x1b[2K\nxy\rzzzz"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 3_400_000: "3.4 MB", 12_300_000_000: "12.3 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
