package termtext

import (
	"bytes"
	"testing"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain text is kept", "tar -x -f FILE\n\tüber naïve → ok", "tar -x -f FILE\n\tüber naïve → ok"},
		{"window title (OSC, BEL)", "a\x1b]0;pwned\x07b", "ab"},
		{"window title (OSC, ST)", "a\x1b]2;pwned\x1b\\b", "ab"},
		{"unterminated OSC keeps the text", "a\x1b]0;pwned", "a0;pwned"},
		{"clear screen and cursor moves", "\x1b[2J\x1b[1;1Hx\x1b[10A", "x"},
		{"colours", "\x1b[1;31mred\x1b[0m", "red"},
		{"reset and charset escapes", "\x1bc\x1b(Bok", "ok"},
		{"C1 controls", "a\u009b2Jb\u009d0;t\u009cc\u0085d", "a2Jb0;tcd"},
		{"raw 8-bit CSI", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"carriage return, backspace, DEL, NUL", "safe\roverwritten\bx\x7f\x00!", "safeoverwrittenx!"},
		{"DCS string", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestWriterAcrossWrites: a character cut between two writes comes out
// whole, and a sequence cut between two writes still loses its ESC.
func TestWriterAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	parts := [][]byte{[]byte("na\xc3"), []byte("\xafve \x1b"), []byte("]0;t\x07 → \xe2\x86"), []byte("\x92 end\n")}
	for _, p := range parts {
		n, err := w.Write(p)
		if err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	got := out.String()
	if want := "naïve ]0;t → → end\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
