// Package termtext makes text from man pages, --help output and logs safe
// to print: a page must not be able to move the cursor, clear the screen,
// set the window title or hide text from the reader with escape
// sequences. It imports nothing of cmdai's, so every package can use it.
package termtext

import (
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// escapes matches the terminal sequences worth removing whole, so that
// their parameters do not stay behind as litter: CSI ("ESC [" ... final
// byte), OSC ("ESC ]" ... BEL or ST), DCS, SOS, PM and APC strings, and
// two-byte escapes. Whatever it misses, Clean's control filter still
// drops the ESC itself, which is what makes the rest harmless.
var escapes = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b[\\]PX^_][^\x07\x1b]*(\x07|\x1b\\\\)|\x1b[ -/]*[0-~]")

// Clean removes escape sequences and every control character but
// newline and tab: C0 (carriage return, backspace and ESC included), DEL
// and the C1 range U+0080-U+009F (a lone 0x9B is CSI to some terminals).
// Bytes that are not UTF-8 become U+FFFD.
func Clean(s string) string {
	if clean(s) {
		return s
	}
	s = escapes.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if printable(r) {
			return r
		}
		return -1
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

func printable(r rune) bool {
	return r == '\n' || r == '\t' || (r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0))
}

// clean is Clean's fast path: most text has nothing to remove.
func clean(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !printable(r) {
			return false
		}
		i += n
	}
	return true
}

// Writer passes everything written to it through Clean. A character cut
// in two by consecutive writes is held back until its end arrives, so
// that it is not mistaken for a broken one; a sequence cut in two loses
// its ESC all the same, so nothing written reaches the terminal as a
// command.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes it; it reports all of p as written when the
// underlying writer takes the cleaned text.
func (t *Writer) Write(p []byte) (int, error) {
	buf := append(t.pending, p...)
	t.pending = nil
	// Hold back the start of a multi-byte character the next write ends.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				t.pending = append([]byte(nil), buf[i:]...)
				buf = buf[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(t.w, Clean(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}
