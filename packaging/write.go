package packaging

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"time"

	"github.com/mholt/archiver/v4"
)

// Write writes the tarball of m and recs to w. The same index gives the
// same bytes: records sorted by id, JSON with sorted keys, entries in a
// fixed order with the build time as their time, no owners, and a gzip
// header without time or name. Write fills m's Format, FormatVersion,
// Records and Files.
func Write(ctx context.Context, w io.Writer, m Manifest, recs []Record) error {
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	// Records go through a temporary file: an index can be larger than
	// what is comfortable to hold twice in memory.
	tmp, err := os.CreateTemp("", "cmdai-records-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, h), 1<<20)
	var size int64
	for _, r := range recs {
		if len(r.Embedding) != m.Model.Dims {
			return fmt.Errorf("record %s has %d dims, the manifest says %d", r.ID, len(r.Embedding), m.Model.Dims)
		}
		line, err := r.marshal()
		if err != nil {
			return fmt.Errorf("record %s: %w", r.ID, err)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
		size += int64(len(line))
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	m.Format, m.FormatVersion, m.Records = Format, FormatVersion, len(recs)
	m.Files = map[string]FileSum{RecordsName: {Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}}
	if m.SourceCommands == nil {
		m.SourceCommands = []string{}
	}
	sort.Strings(m.SourceCommands)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	manifest = append(manifest, '\n')

	return WriteTarGz(ctx, w, m.BuiltAt, []Entry{
		{Name: ManifestName, Size: int64(len(manifest)), Open: func() (io.ReadCloser, error) { return io.NopCloser(bytesReader(manifest)), nil }},
		{Name: RecordsName, Size: size, Open: func() (io.ReadCloser, error) { return os.Open(tmp.Name()) }},
	})
}

// Entry is one regular file of a tarball WriteTarGz makes.
type Entry struct {
	Name string
	Size int64
	Open func() (io.ReadCloser, error)
}

// WriteTarGz writes entries, in the order given, as a gzip tarball that
// depends on nothing but its content: every entry has mtime (to the
// second), mode 0644 and no owner, and the gzip header has no time or
// name. The model export uses it too.
func WriteTarGz(ctx context.Context, w io.Writer, mtime time.Time, entries []Entry) error {
	mtime = mtime.UTC().Truncate(time.Second)
	files := make([]archiver.File, len(entries))
	for i, e := range entries {
		files[i] = archiver.File{FileInfo: fileInfo{name: path.Base(e.Name), size: e.Size, mtime: mtime}, NameInArchive: e.Name, Open: e.Open}
	}
	// gzip by hand: archiver's Gz writes a time into the header.
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	if err := (archiver.Tar{}).Archive(ctx, zw, files); err != nil {
		return err
	}
	return zw.Close()
}

// fileInfo is a regular file with nothing from the local disk in it: no
// owner, no permissions but 0644, the given time. Sys is nil, so the tar
// header gets no uid, gid or names.
type fileInfo struct {
	name  string
	size  int64
	mtime time.Time
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return 0o644 }
func (f fileInfo) ModTime() time.Time { return f.mtime }
func (f fileInfo) IsDir() bool        { return false }
func (f fileInfo) Sys() any           { return nil }
