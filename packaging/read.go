package packaging

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mholt/archiver/v4"
)

// Limits bound what a tarball may make a reader do. Nothing is written to
// disk while reading, so they guard memory and time.
type Limits struct {
	// MaxManifest bounds manifest.json; 0 means 16 MiB.
	MaxManifest int64
	// MaxRecord bounds one line of records.jsonl; 0 means 4 MiB.
	MaxRecord int
	// MaxTotal bounds the decompressed bytes; 0 means 16 GiB.
	MaxTotal int64
	// MaxRatio bounds decompressed/compressed once past 64 MiB; 0 means
	// 100 (real indexes compress about 3:1).
	MaxRatio int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxManifest <= 0 {
		l.MaxManifest = 16 << 20
	}
	if l.MaxRecord <= 0 {
		l.MaxRecord = 4 << 20
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = 16 << 30
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = 100
	}
	return l
}

// ErrHostile marks a tarball refused for its structure or size rather than
// for damage: entries outside the expected two, links, escaping paths,
// decompression bombs.
var ErrHostile = errors.New("refused archive")

// ErrDamaged marks a tarball that is truncated or whose content does not
// match its manifest.
var ErrDamaged = errors.New("damaged archive")

// Handler receives a tarball's content as Read streams it. Manifest is
// called once, before any record; returning an error stops the read.
type Handler struct {
	Manifest func(Manifest) error
	Record   func(Record) error
}

// Read streams a tarball: it checks the manifest, then hands over each
// record while hashing records.jsonl, and fails if the hash, the size or
// the count differs from the manifest. A caller that loads records must
// treat them as unverified until Read returns nil.
func Read(ctx context.Context, r io.Reader, lim Limits, h Handler) (Manifest, error) {
	in := &countReader{r: r}
	zr, err := archiver.Gz{}.OpenReader(in)
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: not a gzip file: %v", ErrDamaged, err)
	}
	defer zr.Close()
	tr := &tarReader{lim: lim.withDefaults(), h: h}
	out := &bombGuard{r: zr, in: in, lim: tr.lim}
	if err := (archiver.Tar{}).Extract(ctx, out, nil, tr.entry); err != nil {
		return tr.m, classify(ctx, err)
	}
	return tr.m, tr.complete()
}

// tarReader is one Read's state across the tarball's entries: the
// manifest once seen, and what the records entry held so far.
type tarReader struct {
	lim        Limits
	h          Handler
	m          Manifest
	gotRecords bool
	count      int
}

// entry checks one tar entry's header and hands its content to the
// reader for its name; anything but the manifest and the records is
// refused.
func (t *tarReader) entry(ctx context.Context, f archiver.File) error {
	hdr, _ := f.Header.(*tar.Header)
	if hdr == nil {
		return fmt.Errorf("%w: entry %q has no tar header", ErrHostile, f.NameInArchive)
	}
	if err := checkEntry(hdr); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	switch hdr.Name {
	case ManifestName:
		return t.manifest(hdr, rc)
	case RecordsName:
		return t.records(hdr, rc)
	}
	return fmt.Errorf("%w: unexpected entry %q (a cmdai index holds %s and %s only)", ErrHostile, hdr.Name, ManifestName, RecordsName)
}

// manifest reads and checks the manifest (bounded: it is read whole) and
// hands it to the caller before any record arrives.
func (t *tarReader) manifest(hdr *tar.Header, rc io.Reader) error {
	if t.m.Format != "" {
		return fmt.Errorf("%w: two manifests", ErrHostile)
	}
	if hdr.Size > t.lim.MaxManifest {
		return fmt.Errorf("%w: manifest of %d bytes (limit %d)", ErrHostile, hdr.Size, t.lim.MaxManifest)
	}
	data, err := io.ReadAll(io.LimitReader(rc, t.lim.MaxManifest))
	if err != nil {
		return damaged(err)
	}
	if err := json.Unmarshal(data, &t.m); err != nil {
		return fmt.Errorf("%w: manifest is not valid JSON: %v", ErrDamaged, err)
	}
	if err := t.m.Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if t.h.Manifest != nil {
		if err := t.h.Manifest(t.m); err != nil {
			return callerErr{err}
		}
	}
	return nil
}

// records streams records.jsonl line by line to the caller, hashing it
// on the way, and compares size and hash with the manifest's: the
// records are never held whole.
func (t *tarReader) records(hdr *tar.Header, rc io.Reader) error {
	if t.m.Format == "" {
		return fmt.Errorf("%w: %s comes before %s", ErrHostile, RecordsName, ManifestName)
	}
	if t.gotRecords {
		return fmt.Errorf("%w: two %s entries", ErrHostile, RecordsName)
	}
	t.gotRecords = true
	want := t.m.Files[RecordsName]
	if hdr.Size != want.Size {
		return fmt.Errorf("%w: %s is %d bytes, the manifest says %d", ErrDamaged, RecordsName, hdr.Size, want.Size)
	}
	sum := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(rc, sum), 64<<10)
	for {
		line, err := readLine(br, t.lim.MaxRecord)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := t.record(line); err != nil {
			return err
		}
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != want.SHA256 {
		return fmt.Errorf("%w: %s has sha256 %s, the manifest says %s", ErrDamaged, RecordsName, got, want.SHA256)
	}
	return nil
}

// record decodes one line of records.jsonl, counts it against the
// manifest's total and hands it to the caller.
func (t *tarReader) record(line []byte) error {
	rec, err := unmarshalRecord(line, t.m.Model.Dims)
	if err != nil {
		return fmt.Errorf("%w: %s line %d: %v", ErrDamaged, RecordsName, t.count+1, err)
	}
	t.count++
	if t.count > t.m.Records {
		return fmt.Errorf("%w: more records than the manifest's %d", ErrDamaged, t.m.Records)
	}
	if t.h.Record != nil {
		if err := t.h.Record(rec); err != nil {
			return callerErr{err}
		}
	}
	return nil
}

// complete checks, once the tarball has ended cleanly, that it held what
// the manifest promised: a truncated tarball can end between entries.
func (t *tarReader) complete() error {
	switch {
	case t.m.Format == "":
		return fmt.Errorf("%w: no %s", ErrDamaged, ManifestName)
	case !t.gotRecords:
		return fmt.Errorf("%w: no %s (truncated?)", ErrDamaged, RecordsName)
	case t.count != t.m.Records:
		return fmt.Errorf("%w: %d records, the manifest says %d", ErrDamaged, t.count, t.m.Records)
	}
	return nil
}

// classify turns an error that stopped the read into what Read returns:
// the caller's own error unwrapped, a refusal or damage as is, a
// cancellation as is, and anything else (a tar or gzip failure) as
// damage.
func classify(ctx context.Context, err error) error {
	var ce callerErr
	switch {
	case errors.As(err, &ce):
		return ce.err
	case errors.Is(err, ErrHostile) || errors.Is(err, ErrDamaged) || ctx.Err() != nil:
		return err
	}
	return damaged(err)
}

// errManifestRead stops Read once ReadManifest has what it wants.
var errManifestRead = errors.New("manifest read")

// ReadManifest reads and checks only the manifest, the tarball's first
// entry, and stops: what a caller needs to decide where an index goes
// before it starts anything. The records are neither read nor verified.
func ReadManifest(ctx context.Context, r io.Reader, lim Limits) (Manifest, error) {
	var got Manifest
	_, err := Read(ctx, r, lim, Handler{Manifest: func(m Manifest) error {
		got = m
		return errManifestRead
	}})
	if errors.Is(err, errManifestRead) {
		return got, nil
	}
	if err == nil {
		// Read checks a manifest exists before it returns nil
		return got, fmt.Errorf("%w: no %s", ErrDamaged, ManifestName)
	}
	return got, err
}

// callerErr carries an error of the Handler through Extract unchanged.
type callerErr struct{ err error }

func (c callerErr) Error() string { return c.err.Error() }

func damaged(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: truncated (%v): download or copy it again", ErrDamaged, err)
	}
	return fmt.Errorf("%w: %v", ErrDamaged, err)
}

// checkEntry refuses anything but a plain regular file with a clean,
// relative name: no links, devices or directories, nothing that would
// escape a directory if someone extracted the archive by hand.
func checkEntry(h *tar.Header) error {
	name := h.Name
	switch {
	case h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink:
		return fmt.Errorf("%w: entry %q is a link to %q", ErrHostile, name, h.Linkname)
	case h.Typeflag != tar.TypeReg:
		return fmt.Errorf("%w: entry %q is not a regular file (type %q)", ErrHostile, name, h.Typeflag)
	case strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || path.IsAbs(name):
		return fmt.Errorf("%w: entry %q has an absolute path", ErrHostile, name)
	case name != path.Clean(name) || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../"):
		return fmt.Errorf("%w: entry %q escapes the archive", ErrHostile, name)
	case h.Size < 0:
		return fmt.Errorf("%w: entry %q has size %d", ErrHostile, name, h.Size)
	}
	return nil
}

// readLine reads one newline-terminated line of at most max bytes and
// returns it without the newline. Every line Write makes ends in one, so
// a last line without it means the data was cut.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max+1 {
			return nil, fmt.Errorf("%w: a line of %s is over %d bytes", ErrHostile, RecordsName, max)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, damaged(io.ErrUnexpectedEOF)
		case errors.Is(err, ErrHostile):
			return nil, err
		default:
			return nil, damaged(err)
		}
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bombGuard stops decompression that grows past the limits.
type bombGuard struct {
	r   io.Reader
	in  *countReader
	lim Limits
	n   int64
}

func (b *bombGuard) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.lim.MaxTotal {
		return n, fmt.Errorf("%w: decompresses to over %d bytes", ErrHostile, b.lim.MaxTotal)
	}
	if b.n > 64<<20 && b.in.n > 0 && b.n/b.in.n > b.lim.MaxRatio {
		return n, fmt.Errorf("%w: decompression bomb (%d bytes from %d compressed)", ErrHostile, b.n, b.in.n)
	}
	return n, err
}
