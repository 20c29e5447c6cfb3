package scanner

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPageFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	text := page("every format") + strings.Repeat(".PP\nfiller text\n", 500)
	for _, name := range []string{"plain.1", "g.1.gz", "x.1.xz", "z.1.zst"} {
		p := filepath.Join(dir, name)
		writePage(t, p, text)
		got, from, err := ReadPage(p, 1<<20)
		if err != nil {
			t.Errorf("ReadPage(%s): %v", name, err)
			continue
		}
		if string(got) != text || from != p {
			t.Errorf("ReadPage(%s) = %d bytes from %s, want the %d-byte text from itself", name, len(got), from, len(text))
		}
	}
	p := filepath.Join(dir, "b.1.bz2")
	writePage(t, p, bz2Text)
	if got, _, err := ReadPage(p, 1<<20); err != nil || string(got) != bz2Text {
		t.Errorf("ReadPage(bz2) = %q, %v", got, err)
	}
	// Content wins over a wrong name: gzip data in a ".xz" file.
	p = filepath.Join(dir, "misnamed.1.xz")
	write(t, p, compress(t, "gz", []byte(text)), 0o644)
	if got, _, err := ReadPage(p, 1<<20); err != nil || string(got) != text {
		t.Errorf("ReadPage(gzip named .xz) = %d bytes, %v", len(got), err)
	}
	// Plain text named .gz is corrupt, not silently passed on.
	p = filepath.Join(dir, "fake.1.gz")
	write(t, p, []byte(text), 0o644)
	if _, _, err := ReadPage(p, 1<<20); err == nil || !strings.Contains(err.Error(), "not gz data") {
		t.Errorf("ReadPage(plain text named .gz) error = %v", err)
	}
	// A truncated gzip stream is an error too.
	p = filepath.Join(dir, "cut.1.gz")
	gz := compress(t, "gz", []byte(text))
	write(t, p, gz[:len(gz)/2], 0o644)
	if _, _, err := ReadPage(p, 1<<20); err == nil {
		t.Error("ReadPage(truncated gzip) succeeded")
	}
}

func TestReadPageSizeCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	big := bytes.Repeat([]byte("a"), 1<<20)
	for _, format := range []string{"", "gz", "xz", "zst"} {
		p := filepath.Join(dir, "big.1")
		if format != "" {
			p += "." + format
		}
		write(t, p, compress(t, format, big), 0o644)
		if _, _, err := ReadPage(p, 1000); !errors.Is(err, ErrPageTooLarge) {
			t.Errorf("ReadPage(%s, 1000) error = %v, want ErrPageTooLarge", filepath.Base(p), err)
		}
		if got, _, err := ReadPage(p, 1<<20); err != nil || len(got) != 1<<20 {
			t.Errorf("ReadPage(%s) at exactly the limit = %d bytes, %v", filepath.Base(p), len(got), err)
		}
	}
}

func TestReadPageSo(t *testing.T) {
	root, _ := manTree(t)
	for _, tc := range []struct{ page, from, want string }{
		{"man1/alias.1", "man8/target.8.gz", "target.8.gz"}, // two hops, compressed targets
		{"man1/local.1", "man1/local-target.1.gz", "local-target"},
		{"man1/link.1.gz", "man1/link.1.gz", "foo.1.gz"}, // symlink followed
	} {
		got, from, err := ReadPage(filepath.Join(root, tc.page), 0)
		if err != nil {
			t.Errorf("ReadPage(%s): %v", tc.page, err)
			continue
		}
		if from != filepath.Join(root, tc.from) || !strings.Contains(string(got), tc.want) {
			t.Errorf("ReadPage(%s) = %q from %s, want %q from %s", tc.page, got, from, tc.want, tc.from)
		}
	}
	for _, tc := range []struct{ page, err string }{
		{"man1/loopa.1", "loop"},
		{"man1/hop0.1", "more than 5"},
		{"man1/broken.1.gz", "no such page"},
		{"man1/gone.1.gz", "dangling symlink"},
		{"man1/absent.1.gz", "no such file"},
	} {
		_, _, err := ReadPage(filepath.Join(root, tc.page), 0)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ReadPage(%s) error = %v, want one mentioning %q", tc.page, err, tc.err)
		}
	}
	// Five hops are allowed.
	if _, from, err := ReadPage(filepath.Join(root, "man1/hop1.1"), 0); err != nil || filepath.Base(from) != "hop6.1" {
		t.Errorf("ReadPage(hop1.1) = %s, %v; want hop6.1 after five hops", from, err)
	}
}

func TestSoTarget(t *testing.T) {
	for src, want := range map[string]string{
		".so man1/a.1\n":                        "man1/a.1",
		".\\\" c\n'\\\" c\n\n.so  man1/b.1  \n": "man1/b.1",
		".so man7/c.7 \\\" comment\n":           "man7/c.7",
		".TH X 1\n.so man1/d.1\n":               "",
		".sox\n":                                "",
		".so\n":                                 "",
		"":                                      "",
	} {
		got, ok := soTarget([]byte(src))
		if got != want || ok != (want != "") {
			t.Errorf("soTarget(%q) = %q, %v; want %q", src, got, ok, want)
		}
	}
}

// A .so target is tried with every compression but .Z, and the error names
// exactly the suffixes tried; both held as they were before the suffix
// list became one.
func TestResolveSoSuffixes(t *testing.T) {
	dir := t.TempDir()
	cur := filepath.Join(dir, "man1", "stub.1")
	write(t, filepath.Join(dir, "man1", "old.1.Z"), []byte{0x1f, 0x9d, 0}, 0o644)
	_, err := resolveSo(cur, "man1/old.1")
	want := fmt.Sprintf(".so redirect from %s to %q: no such page (tried %s[.gz|.bz2|.xz|.zst]; install the package providing it)",
		cur, "man1/old.1", filepath.Join(dir, "man1/old.1"))
	if err == nil || err.Error() != want {
		t.Errorf("resolveSo to a .Z page: error = %v, want %s", err, want)
	}
	write(t, filepath.Join(dir, "man1", "new.1.zst"), compress(t, "zst", []byte("x")), 0o644)
	if got, err := resolveSo(cur, "man1/new.1"); err != nil || got != filepath.Join(dir, "man1", "new.1.zst") {
		t.Errorf("resolveSo to a .zst page = %s, %v", got, err)
	}
}
