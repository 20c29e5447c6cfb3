// Package termbar draws a progress line (schollz/progressbar/v3) that
// never grows wider than the terminal: the line is laid out for the
// terminal's width at each update (a resize is seen at the next one), its
// description is the longest of the caller's variants that leaves room
// for the bar, and whatever still overflows (an ETA of 100 hours, a
// terminal narrowed between updates) is cut at the last column rather
// than wrapped. A wrapped line cannot be redrawn in place: each update
// would leave a stale line behind and scroll the screen.
package termbar

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// DefaultWidth is the width assumed when the terminal's is unknown.
const DefaultWidth = 80

// Layout of the library's line `<desc>  45% |=====     |  [1m2s:3m4s]`:
// the percentage and the spaces around the bar take 9 columns besides
// the bar's own two ends, the times' brackets and colon 3.
const (
	fixedCols = 5 + 1 + 2 + 1 + 1
	minBar    = 8
	// minTimeCols is room for "1h2m3s" (under 10 h) on either side.
	minTimeCols = 6
)

// Bar is one progress line. Its methods are not safe for concurrent use:
// the caller serialises its updates (the library draws from the calling
// goroutine only: a bar of known length starts no goroutine).
type Bar struct {
	bar   *progressbar.ProgressBar
	width func() int
	start time.Time
	max   int
	cols  int // the bar's width last set
}

// New returns a bar drawn on w, a terminal whose width in columns width
// reports (0: unknown).
func New(w io.Writer, width func() int) *Bar {
	b := &Bar{width: width, start: time.Now(), max: 1}
	b.bar = progressbar.NewOptions(1, progressbar.OptionSetWriter(&fitWriter{w: w, cols: b.columns}),
		progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond))
	return b
}

// columns is the terminal's width now.
func (b *Bar) columns() int {
	if b.width != nil {
		if w := b.width(); w > 0 {
			return w
		}
	}
	return DefaultWidth
}

// Set draws progress cur of max, described by the first of descs
// (longest first) that leaves the bar minBar columns at this width, or
// by none.
func (b *Bar) Set(cur, max int, descs ...string) {
	max = maxInt(max, cur, 1)
	if max != b.max {
		b.max = max
		b.bar.ChangeMax(max)
	}
	desc, cols := b.layout(descs)
	if cols != b.cols {
		b.cols = cols
		// Options are functions on the bar: applying one later is how
		// the library's width changes without a new bar (and a new ETA).
		progressbar.OptionSetWidth(cols)(b.bar)
	}
	b.bar.Describe(desc)
	_ = b.bar.Set(cur)
}

// layout picks the description and the bar's width for the terminal's
// width now. The line is kept a column short of the terminal's: a line
// that fills the last column wraps on some terminals.
func (b *Bar) layout(descs []string) (string, int) {
	room := b.columns() - 1 - fixedCols - 3 - 2*maxInt(len(shortDuration(time.Since(b.start))), minTimeCols)
	for _, d := range descs {
		if d == "" {
			continue
		}
		d += " "
		if room-len(d) >= minBar {
			return d, room - len(d)
		}
	}
	return "", maxInt(room, 1)
}

// Done removes the line, finished or not, so that what is printed next
// starts on a clean line.
func (b *Bar) Done() {
	_ = b.bar.Clear()
}

// Bytes is n bytes for a description: 812 B, 3.4 MB (SI units).
func Bytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

// shortDuration is a duration as the library prints its times.
func shortDuration(d time.Duration) string {
	return (d.Truncate(time.Second) + time.Second).String()
}

func maxInt(a int, rest ...int) int {
	for _, b := range rest {
		if b > a {
			a = b
		}
	}
	return a
}

// fitWriter cuts every line written through it (a line ends at \r or \n)
// at the terminal's width less one column; escape sequences pass and take
// no room. Each rune is taken for one column: what the bar prints is
// ASCII.
type fitWriter struct {
	w    io.Writer
	cols func() int
	col  int
	esc  int // 0 outside an escape sequence, 1 after ESC, 2 inside CSI
}

func (f *fitWriter) Write(p []byte) (int, error) {
	limit := f.cols() - 1
	out := make([]byte, 0, len(p))
	s := string(p)
	for _, r := range s {
		switch {
		case f.esc == 1:
			f.esc = 0
			if r == '[' {
				f.esc = 2
			}
			out = append(out, string(r)...)
		case f.esc == 2:
			if r >= 0x40 && r <= 0x7e {
				f.esc = 0
			}
			out = append(out, string(r)...)
		case r == 0x1b:
			f.esc = 1
			out = append(out, byte(r))
		case r == '\r' || r == '\n':
			f.col = 0
			out = append(out, byte(r))
		case f.col < limit:
			f.col++
			out = append(out, string(r)...)
		}
	}
	if _, err := f.w.Write(out); err != nil {
		return 0, fmt.Errorf("progress line: %w", err)
	}
	return len(p), nil
}
