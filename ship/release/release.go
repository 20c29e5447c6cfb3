// Package release finds and fetches published index tarballs from a
// release location (an HTTP(S) base URL, a file:// URL or a directory),
// resuming cut downloads and verifying them against the published
// checksums before anything uses them.
package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cmdai/cmdai/internal/netwait"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/packaging"
)

// DefaultBase is where the project's CI publishes indexes.
const DefaultBase = "https://github.com/cmdai/cmdai/releases/latest/download"

// ChecksumsName is the merged checksums file of a release.
const ChecksumsName = "checksums.txt"

// TarballName is the file a distribution's index ships as.
func TarballName(distroID string) string { return "chroma-index-" + distroID + ".tar.gz" }

// ErrNotFound means the location has no such file.
var ErrNotFound = errors.New("not found")

// Source is a release location.
type Source struct {
	// Base is an http(s):// or file:// URL, or a directory.
	Base   string
	Client *http.Client
	// IdleTimeout ends a transfer that receives no byte for this long
	// (netwait.DefaultIdleTimeout when 0); the partial file is kept.
	IdleTimeout time.Duration
}

func (s Source) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return netwait.NewClient(s.IdleTimeout)
}

// local returns the directory of a file:// or plain-path base.
func (s Source) local() (string, bool) {
	if strings.HasPrefix(s.Base, "file://") {
		u, err := url.Parse(s.Base)
		if err == nil {
			return u.Path, true
		}
	}
	if !strings.Contains(s.Base, "://") {
		return s.Base, true
	}
	return "", false
}

func (s Source) urlOf(name string) string { return strings.TrimRight(s.Base, "/") + "/" + name }

// Entry is one index a location offers.
type Entry struct {
	Distro string `json:"distro"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// List reads the location's checksums.txt (and, for a directory without
// one, the tarballs in it).
func (s Source) List(ctx context.Context) ([]Entry, error) {
	data, err := s.small(ctx, ChecksumsName)
	var sums map[string]string
	switch {
	case err == nil:
		if sums, err = packaging.ParseChecksums(strings.NewReader(string(data))); err != nil {
			return nil, fmt.Errorf("%s: %w", s.urlOf(ChecksumsName), err)
		}
	case errors.Is(err, ErrNotFound):
		dir, ok := s.local()
		if !ok {
			return nil, fmt.Errorf("%s has no %s: it is not a cmdai release location", s.Base, ChecksumsName)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory: give --base-url a release URL, a file:// URL or a directory holding the tarballs", s.Base)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "chroma-index-*.tar.gz"))
		sums = map[string]string{}
		for _, m := range matches {
			sums[filepath.Base(m)] = ""
		}
	default:
		return nil, err
	}
	var out []Entry
	for name, sum := range sums {
		if d, ok := strings.CutPrefix(name, "chroma-index-"); ok && strings.HasSuffix(d, ".tar.gz") {
			out = append(out, Entry{Distro: strings.TrimSuffix(d, ".tar.gz"), File: name, SHA256: sum})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Distro < out[j].Distro })
	return out, nil
}

// small fetches a small file (a checksums file) whole.
func (s Source) small(ctx context.Context, name string) ([]byte, error) {
	if dir, ok := s.local(); ok {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, filepath.Join(dir, name))
		}
		return data, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.urlOf(name), nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, netwait.Network(fmt.Errorf("fetch %s: %w", s.urlOf(name), err))
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, s.urlOf(name))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", s.urlOf(name), resp.Status)
	}
	body := netwait.NewIdleReader(resp.Body, s.IdleTimeout, cancel)
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return nil, netwait.Network(fmt.Errorf("fetch %s: %w after %d bytes", s.urlOf(name), err, len(data)))
	}
	return data, nil
}

// Checksums returns the published sha256 of name: from name.sha256, else
// from the release's checksums.txt.
func (s Source) Checksums(ctx context.Context, name string) (string, error) {
	if dir, ok := s.local(); ok {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("%s is not a directory: give --base-url a release URL, a file:// URL or a directory holding the tarballs", s.Base)
		}
	}
	listed := false // a checksums.txt exists and does not list name
	for _, f := range []string{name + packaging.ChecksumSuffix, ChecksumsName} {
		data, err := s.small(ctx, f)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		listed = f == ChecksumsName
		if err != nil {
			return "", err
		}
		sums, err := packaging.ParseChecksums(strings.NewReader(string(data)))
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.urlOf(f), err)
		}
		if sum, ok := sums[name]; ok {
			return sum, nil
		}
	}
	if listed {
		return "", fmt.Errorf("%w: %s lists no %s", ErrNotFound, s.urlOf(ChecksumsName), name)
	}
	return "", fmt.Errorf("%w: %s publishes no checksum for %s (neither %s nor %s): refusing an unverifiable download", ErrNoChecksums, s.Base, name, name+packaging.ChecksumSuffix, ChecksumsName)
}

// SignedSums is a release's checksums.txt whose minisign signature
// verified with a trusted key.
type SignedSums struct {
	Data, Signature []byte            // the file and its signature, as published
	Sums            map[string]string // file name -> sha256
	Signed          packaging.Signed
}

// SignedChecksums fetches the release's checksums.txt and its signature
// (checksums.txt.minisig) and checks the one against the other with keys.
// packaging.ErrUnsigned: the location publishes no signature (or no
// checksums.txt at all); packaging.ErrBadSignature: it does not verify.
func (s Source) SignedChecksums(ctx context.Context, keys []packaging.PublicKey) (SignedSums, error) {
	data, err := s.small(ctx, ChecksumsName)
	if errors.Is(err, ErrNotFound) {
		return SignedSums{}, fmt.Errorf("%w: %s publishes no %s, so nothing of it is signed", packaging.ErrUnsigned, s.Base, ChecksumsName)
	}
	if err != nil {
		return SignedSums{}, err
	}
	sig, err := s.small(ctx, ChecksumsName+packaging.SignatureSuffix)
	if errors.Is(err, ErrNotFound) {
		return SignedSums{}, fmt.Errorf("%w: %s publishes no %s beside its %s", packaging.ErrUnsigned, s.Base, ChecksumsName+packaging.SignatureSuffix, ChecksumsName)
	}
	if err != nil {
		return SignedSums{}, err
	}
	signed, err := packaging.VerifySignature(s.urlOf(ChecksumsName), data, sig, keys)
	if err != nil {
		return SignedSums{}, err
	}
	sums, err := packaging.ParseChecksums(strings.NewReader(string(data)))
	if err != nil {
		return SignedSums{}, fmt.Errorf("%s: %w", s.urlOf(ChecksumsName), err)
	}
	return SignedSums{Data: data, Signature: sig, Sums: sums, Signed: signed}, nil
}

// ErrNoChecksums means a location publishes no checksum for a file.
var ErrNoChecksums = errors.New("no checksums")

// Progress reports bytes fetched so far of total (-1 if unknown).
type Progress func(done, total int64)

// Fetch downloads name into dir and returns its path. A partial download
// left in dir (name + ".part") is resumed with an HTTP range request; a
// server that ignores ranges sends the whole file again. The file is
// renamed to name only once complete.
func (s Source) Fetch(ctx context.Context, name, dir string, progress Progress) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if src, ok := s.local(); ok {
		return copyLocal(src, name, dir)
	}
	return s.fetchHTTP(ctx, name, dir, progress)
}

// copyLocal copies name from the directory src into dir, atomically: no
// half file ever stands under the final name.
func copyLocal(src, name, dir string) (string, error) {
	final := filepath.Join(dir, name)
	if err := safefile.CopyFile(filepath.Join(src, name), final, 0o644); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: %s", ErrNotFound, filepath.Join(src, name))
		}
		return "", err
	}
	return final, nil
}

// errRefetch asks fetchHTTP to drop the partial download and start anew.
var errRefetch = errors.New("fetch anew")

// fetchHTTP downloads name over HTTP into name.part in dir, from where an
// earlier cut download stopped, and renames it to name once complete.
func (s Source) fetchHTTP(ctx context.Context, name, dir string, progress Progress) (string, error) {
	final := filepath.Join(dir, name)
	part := final + ".part"
	f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return "", err
	}
	// The idle reader cancels this context when the body stalls.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := s.get(ctx, name, have)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	have, total, err := s.resumeAt(resp, f, name, have)
	if errors.Is(err, errRefetch) {
		f.Close()
		os.Remove(part)
		return s.Fetch(ctx, name, dir, progress)
	}
	if err != nil {
		return "", err
	}
	body := netwait.NewIdleReader(resp.Body, s.IdleTimeout, cancel)
	defer body.Close()
	if err := s.receive(f, body, name, have, total, progress); err != nil {
		return "", err
	}
	f.Close()
	if err := os.Rename(part, final); err != nil {
		return "", err
	}
	// The rename is durable only once the directory entry is on disk.
	return final, safefile.SyncDir(dir)
}

// get requests name, from byte have on when a partial download exists.
func (s Source) get(ctx context.Context, name string, have int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.urlOf(name), nil)
	if err != nil {
		return nil, err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, netwait.Network(fmt.Errorf("fetch %s: %w (run the same command again to resume)", s.urlOf(name), err))
	}
	return resp, nil
}

// resumeAt reads the server's answer to get: where the body starts in the
// file (have, or 0 when the whole file comes again, the part f then
// emptied) and the file's total size (-1 if unknown). errRefetch means
// the part is as long as the file, or longer.
func (s Source) resumeAt(resp *http.Response, f *os.File, name string, have int64) (int64, int64, error) {
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, size, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return 0, 0, fmt.Errorf("fetch %s: the server resumed at %q, not at byte %d", s.urlOf(name), resp.Header.Get("Content-Range"), have)
		}
		return have, size, nil
	case http.StatusOK:
		// whole file: start over
		if err := f.Truncate(0); err != nil {
			return 0, 0, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, 0, err
		}
		return 0, resp.ContentLength, nil
	case http.StatusRequestedRangeNotSatisfiable:
		return 0, 0, errRefetch
	case http.StatusNotFound:
		os.Remove(f.Name())
		return 0, 0, fmt.Errorf("%w: %s", ErrNotFound, s.urlOf(name))
	}
	return 0, 0, fmt.Errorf("fetch %s: %s", s.urlOf(name), resp.Status)
}

// receive appends the body to the part f, which holds have bytes, and
// syncs it; a cut body or a short file is an error that keeps the part
// for the next run to resume.
func (s Source) receive(f *os.File, body io.Reader, name string, have, total int64, progress Progress) error {
	w := io.Writer(f)
	if progress != nil {
		w = &progressWriter{w: f, done: have, total: total, fn: progress}
	}
	if _, err := io.Copy(w, body); err != nil {
		got := have
		if st, serr := f.Stat(); serr == nil {
			got = st.Size()
		}
		of := "of unknown size"
		if total >= 0 {
			of = fmt.Sprintf("of %d", total)
		}
		return netwait.Network(fmt.Errorf("fetch %s: %w after %d bytes %s (the partial download is kept in %s: run the same command again to resume)", s.urlOf(name), err, got, of, f.Name()))
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if total >= 0 {
		if st, err := f.Stat(); err == nil && st.Size() != total {
			return fmt.Errorf("fetch %s: got %d of %d bytes (run the same command again to resume)", s.urlOf(name), st.Size(), total)
		}
	}
	return nil
}

// contentRange parses "bytes START-END/SIZE".
func contentRange(v string) (start, size int64, ok bool) {
	v, ok = strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0, false
	}
	rng, sz, ok := strings.Cut(v, "/")
	if !ok {
		return 0, 0, false
	}
	s, _, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(s, 10, 64)
	size, err2 := strconv.ParseInt(sz, 10, 64)
	return start, size, err1 == nil && err2 == nil
}

type progressWriter struct {
	w           io.Writer
	done, total int64
	fn          Progress
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.fn(p.done, p.total)
	return n, err
}
