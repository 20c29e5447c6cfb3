package scanner

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// DefaultMaxPageBytes caps a decompressed page when ReadPage is given no
// limit; the largest pages on a full Debian system are a few MiB.
const DefaultMaxPageBytes = 16 << 20

// maxSoHops bounds ".so" redirect chains; real ones are one hop.
const maxSoHops = 5

// ErrPageTooLarge is wrapped by ReadPage when a page exceeds its limit.
var ErrPageTooLarge = errors.New("man page exceeds the size limit")

// ReadPage returns the roff source of the man page file at path,
// decompressed, with ".so" redirects followed (at most 5 hops), and the
// path of the file the source finally came from. maxBytes caps each
// decompressed file (<= 0 means DefaultMaxPageBytes); a larger page is an
// error wrapping ErrPageTooLarge rather than a silent truncation.
func ReadPage(path string, maxBytes int64) ([]byte, string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxPageBytes
	}
	visited := map[string]bool{}
	cur := path
	for hop := 0; ; hop++ {
		key := cur
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			key = real
		}
		if visited[key] {
			return nil, cur, fmt.Errorf("read man page %s: .so redirect loop at %s (the page is broken; reinstall its package)", path, cur)
		}
		visited[key] = true

		src, err := readFile(cur, maxBytes)
		if err != nil {
			return nil, cur, err
		}
		target, ok := soTarget(src)
		if !ok {
			return src, cur, nil
		}
		if hop == maxSoHops {
			return nil, cur, fmt.Errorf("read man page %s: more than %d .so redirects (the page is broken; reinstall its package)", path, maxSoHops)
		}
		next, err := resolveSo(cur, target)
		if err != nil {
			return nil, cur, fmt.Errorf("read man page %s: %w", path, err)
		}
		cur = next
	}
}

// readFile reads and decompresses one file, capped at maxBytes.
func readFile(path string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if target, lerr := os.Readlink(path); lerr == nil {
				return nil, fmt.Errorf("read man page %s: dangling symlink to %s (the package that owned the target was probably removed; reinstall it or delete the link)", path, target)
			}
		}
		return nil, fmt.Errorf("read man page %s: %w", path, err)
	}
	defer f.Close()

	// Reading 20,000 small pages is allocation-bound: reuse the read
	// buffer and the gzip state, and size the output once.
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() { br.Reset(nil); bufPool.Put(br) }()
	format := compressionOf(path)
	// Trust the content over the name when they disagree: a page renamed
	// by hand or a symlink foo.1.gz → bar.1 still reads.
	if head, _ := br.Peek(6); len(head) > 0 {
		switch sniffed := sniff(head); {
		case sniffed != "":
			format = sniffed
		case format != "":
			return nil, fmt.Errorf("read man page %s: named .%s but the content is not %s data (the file is corrupt; reinstall its package)", path, format, format)
		}
	}
	var r io.Reader = br
	switch format {
	case "gz":
		zr, _ := gzPool.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(br); err != nil {
			return nil, fmt.Errorf("read man page %s: gzip: %w (the file is corrupt; reinstall its package)", path, err)
		}
		defer func() { zr.Close(); gzPool.Put(zr) }()
		r = zr
	case "bz2":
		r = bzip2.NewReader(br)
	case "xz":
		xr, err := xz.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read man page %s: xz: %w (the file is corrupt; reinstall its package)", path, err)
		}
		r = xr
	case "zst":
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1),
			// zstd(1)'s own default limit; a forged header cannot make
			// us allocate more for the window.
			zstd.WithDecoderMaxWindow(1<<27))
		if err != nil {
			return nil, fmt.Errorf("read man page %s: zstd: %w", path, err)
		}
		defer zr.Close()
		r = zr
	case "Z":
		return nil, fmt.Errorf("read man page %s: compress(1) .Z pages are not supported (recompress it with gzip)", path)
	}

	buf := bytes.NewBuffer(make([]byte, 0, sizeHint(f, format, maxBytes)))
	n, err := io.Copy(buf, io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read man page %s: decompress %s: %w (the file is corrupt; reinstall its package)", path, format, err)
	}
	if n > maxBytes {
		return nil, fmt.Errorf("read man page %s: %w of %d bytes decompressed (raise the limit if the page is genuine)", path, ErrPageTooLarge, maxBytes)
	}
	return buf.Bytes(), nil
}

var (
	bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}
	gzPool  sync.Pool // *gzip.Reader
)

// sizeHint guesses the decompressed size so the output is allocated once:
// gzip records it (mod 4 GiB) in its last four bytes; for other formats
// assume man pages compress about 3:1. The slack lets bytes.Buffer see EOF
// without growing.
func sizeHint(f *os.File, format string, maxBytes int64) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 4 << 10
	}
	size := fi.Size()
	hint := size
	switch format {
	case "gz":
		var trailer [4]byte
		if _, err := f.ReadAt(trailer[:], size-4); err == nil {
			hint = int64(binary.LittleEndian.Uint32(trailer[:]))
		}
	case "":
	default:
		hint = 3 * size
	}
	return min(hint, maxBytes) + bytes.MinRead
}

// compressionOf maps a file name to its compression by extension.
func compressionOf(path string) string {
	_, c := TrimCompression(path)
	return c
}

// sniff recognises compressed content by its magic number.
func sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gz"
	case bytes.HasPrefix(head, []byte("BZh")):
		return "bz2"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zst"
	case bytes.HasPrefix(head, []byte{0x1f, 0x9d}):
		return "Z"
	}
	return ""
}

// soTarget reports whether src is a ".so" stub: its first line that is
// neither blank nor a comment is ".so path". Stubs are how packages make
// one page answer to several names (lzcat → xz) without symlinks.
func soTarget(src []byte) (string, bool) {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0, bytes.HasPrefix(line, []byte(`.\"`)), bytes.HasPrefix(line, []byte(`'\"`)),
			bytes.HasPrefix(line, []byte(`.\#`)), bytes.Equal(line, []byte(".")):
			continue
		}
		rest, ok := bytes.CutPrefix(line, []byte(".so"))
		if !ok || len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
			return "", false
		}
		target := strings.TrimSpace(string(rest))
		if i := strings.Index(target, `\"`); i >= 0 { // trailing comment
			target = strings.TrimSpace(target[:i])
		}
		return target, target != ""
	}
	return "", false
}

// resolveSo finds the file a ".so target" in page cur refers to. man-db
// runs groff from the hierarchy root, so "man1/foo.1" is relative to the
// parent of cur's manN directory; a bare "foo.1" is also tried next to
// cur. The target may have been compressed after the stub was written, so
// each compression suffix is tried too.
func resolveSo(cur, target string) (string, error) {
	var bases []string
	if filepath.IsAbs(target) {
		bases = []string{filepath.Clean(target)}
	} else {
		dir := filepath.Dir(cur)
		bases = []string{filepath.Join(filepath.Dir(dir), target), filepath.Join(dir, target)}
	}
	exts := soSuffixes()
	for _, b := range bases {
		for _, ext := range exts {
			if fi, err := os.Stat(b + ext); err == nil && fi.Mode().IsRegular() {
				return b + ext, nil
			}
		}
	}
	return "", fmt.Errorf(".so redirect from %s to %q: no such page (tried %s[%s]; install the package providing it)", cur, target, bases[0], strings.Join(exts[1:], "|"))
}

// soSuffixes are the endings a .so target is tried with: none, then each
// compression but compress(1)'s .Z. This lookup has never tried .Z (read
// refuses such pages anyway), so a stub pointing at a .Z page still says
// "no such page" rather than "not supported"; kept so, as behaviour.
func soSuffixes() []string {
	exts := []string{""}
	for _, c := range compressions {
		if c != "Z" {
			exts = append(exts, "."+c)
		}
	}
	return exts
}
