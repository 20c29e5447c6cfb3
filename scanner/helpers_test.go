package scanner

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// installHint is what a test on this machine's real pages says when they
// are missing: CI images must have them, so such tests fail, never skip.
const installHint = "install man pages and man-db (Debian/Ubuntu: apt-get install man-db manpages coreutils; or `make test-deps`)"

// bz2Page is bz2Text compressed by bzip2(1): the standard library can
// only decompress bzip2, so the fixture is stored pre-compressed.
const bz2Text = ".TH BZ 1\n.SH NAME\nbz \\- bzip2 fixture\n"

var bz2Page, _ = base64.StdEncoding.DecodeString("QlpoOTFBWSZTWSUJnTYAAAXfgAAQQAMwADJDDBQTIFZQIAAiI0Q2RDZJ6GoUAAAZMiaF7UHoaEBtcbqqTQFEo5j42du8nD8XckU4UJAlCZ02")

// compress encodes text in the named format ("" = none).
func compress(t testing.TB, format string, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	switch format {
	case "":
		return text
	case "gz":
		w := gzip.NewWriter(&b)
		w.Write(text)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "xz":
		w, err := xz.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(text)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "zst":
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(text)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "bz2":
		if string(text) != bz2Text {
			t.Fatalf("bz2 fixtures can only hold bz2Text")
		}
		return bz2Page
	default:
		t.Fatalf("unknown format %q", format)
	}
	return b.Bytes()
}

// write creates path (and its directories) with content and mode.
func write(t testing.TB, path string, content []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, mode); err != nil {
		t.Fatal(err)
	}
}

// writePage writes a page named like name.sec.ext compressed by ext.
func writePage(t testing.TB, path, text string) {
	t.Helper()
	ext := filepath.Ext(path)
	format := ""
	switch ext {
	case ".gz", ".xz", ".zst", ".bz2":
		format = ext[1:]
	}
	write(t, path, compress(t, format, []byte(text)), 0o644)
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
