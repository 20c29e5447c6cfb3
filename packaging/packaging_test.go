package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleManifest() Manifest {
	return Manifest{
		Distro: "debian-12", OS: "linux", Collection: "cmdai_linux_debian-12",
		Model:       Model{Name: "all-MiniLM-L6-v2", Dims: 4, SHA256: "abc123", Variant: "int8"},
		ToolVersion: "test", ChromaVersion: "1.5.2", Commands: 2,
		BuiltAt:            time.Date(2026, 11, 23, 12, 0, 0, 500, time.UTC),
		SourceCommands:     []string{"tar", "grep"},
		CollectionMetadata: map[string]any{"model": "all-MiniLM-L6-v2", "dims": float64(4), "complete": true},
	}
}

// unitVec is xs scaled to unit length, as the model's vectors are.
func unitVec(xs ...float64) []float32 {
	var sum float64
	for _, x := range xs {
		sum += x * x
	}
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x / math.Sqrt(sum))
	}
	return out
}

func sampleRecords() []Record {
	return []Record{
		{ID: "tar.1#NAME", Document: "tar(1) - an archiving utility", Metadata: map[string]any{"command": "tar", "kind": "summary"}, Embedding: unitVec(0.5, -0.25, 1e-7, 3)},
		{ID: "grep.1#NAME", Document: "grep(1) - print lines that match patterns\nüñí", Metadata: map[string]any{"command": "grep", "kind": "summary", "is_gnu": true}, Embedding: unitVec(-1, 0, 0.125, 2.5)},
		{ID: "grep.1#OPTIONS#--count", Document: "grep(1) option -c, --count", Metadata: map[string]any{"command": "grep", "kind": "option", "option": "--count"}, Embedding: unitVec(1, 2, 3, 4)},
	}
}

func writeSample(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(context.Background(), &buf, sampleManifest(), sampleRecords()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	data := writeSample(t)
	var got []Record
	var seen Manifest
	m, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Handler{
		Manifest: func(m Manifest) error { seen = m; return nil },
		Record:   func(r Record) error { got = append(got, r); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Records != 3 || m.Format != Format || m.FormatVersion != FormatVersion || seen.Records != 3 {
		t.Errorf("manifest: %+v", m)
	}
	if !reflect.DeepEqual(m.SourceCommands, []string{"grep", "tar"}) || m.CollectionMetadata["complete"] != true {
		t.Errorf("manifest content: %+v", m)
	}
	want := sampleRecords()
	// sorted by id
	want[0], want[1], want[2] = want[1], want[2], want[0]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records:\n got %+v\nwant %+v", got, want)
	}
}

func TestReproducible(t *testing.T) {
	a := writeSample(t)
	recs := sampleRecords()
	recs[0], recs[2] = recs[2], recs[0] // another order from the server
	var b bytes.Buffer
	if err := Write(context.Background(), &b, sampleManifest(), recs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b.Bytes()) {
		t.Fatal("two exports of the same index differ")
	}
	// gzip header: no time, no name
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header has time %v name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.Mode != 0o644 || !h.ModTime.Equal(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)) {
			t.Errorf("entry %s: uid %d gid %d %q %q mode %o time %v", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.Mode, h.ModTime)
		}
	}
	if strings.Join(names, " ") != "manifest.json records.jsonl" {
		t.Errorf("entries %v", names)
	}
}

func TestChecksumFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "chroma-index-debian-12.tar.gz")
	if err := os.WriteFile(p, writeSample(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksumFile(p); err != nil {
		t.Fatal(err)
	}
	if err := VerifyFile(p, p+ChecksumSuffix); err != nil {
		t.Fatal(err)
	}
	if sha, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command(sha, "-c", filepath.Base(p)+ChecksumSuffix)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}
	// one byte changed
	data, _ := os.ReadFile(p)
	data[len(data)/2] ^= 1
	os.WriteFile(p, data, 0o644)
	if err := VerifyFile(p, p+ChecksumSuffix); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "download it again") {
		t.Errorf("tampered file: %v", err)
	}
	if _, err := ParseChecksums(strings.NewReader("nonsense line\n")); err == nil {
		t.Error("a line that is not sha256sum format was accepted")
	}
}

// entry is one tar entry of a hand-made archive.
type entry struct {
	hdr  tar.Header
	data []byte
}

func reg(name string, data []byte) entry {
	return entry{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}, data}
}

func makeTarGz(t *testing.T, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range es {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if len(e.data) > 0 {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// validParts returns the manifest and records entries of the sample.
func validParts(t *testing.T) (manifest Manifest, records []byte) {
	t.Helper()
	zr, _ := gzip.NewReader(bytes.NewReader(writeSample(t)))
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(tr)
		if h.Name == ManifestName {
			json.Unmarshal(data, &manifest)
		} else {
			records = data
		}
	}
	return manifest, records
}

func manifestBytes(m Manifest) []byte {
	b, _ := json.Marshal(m)
	return b
}

func TestRefusesHostileAndDamagedArchives(t *testing.T) {
	m, recs := validParts(t)
	mb := manifestBytes(m)
	tampered := bytes.Replace(recs, []byte("archiving utility"), []byte("archiving UTILITY"), 1)
	fewer := recs[:bytes.IndexByte(recs, '\n')+1]
	mFewer := m
	mFewer.Files = map[string]FileSum{RecordsName: {Size: int64(len(fewer)), SHA256: sha(fewer)}}
	mFuture := m
	mFuture.FormatVersion = FormatVersion + 1
	mWrong := m
	mWrong.Format = "something-else"
	mNoModel := m
	mNoModel.Model.SHA256 = ""
	valid := makeTarGz(t, reg(ManifestName, mb), reg(RecordsName, recs))

	cases := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"parent path", makeTarGz(t, reg(ManifestName, mb), reg("../records.jsonl", recs)), ErrHostile, "escapes"},
		{"nested parent path", makeTarGz(t, reg(ManifestName, mb), reg("a/../../x", recs)), ErrHostile, "escapes"},
		{"absolute path", makeTarGz(t, reg("/etc/passwd", []byte("x"))), ErrHostile, "absolute"},
		{"symlink", makeTarGz(t, reg(ManifestName, mb), entry{tar.Header{Name: RecordsName, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, nil}), ErrHostile, "link"},
		{"hard link", makeTarGz(t, reg(ManifestName, mb), entry{tar.Header{Name: RecordsName, Typeflag: tar.TypeLink, Linkname: ManifestName}, nil}), ErrHostile, "link"},
		{"directory", makeTarGz(t, entry{tar.Header{Name: "dir/", Typeflag: tar.TypeDir, Mode: 0o755}, nil}), ErrHostile, "not a regular file"},
		{"unexpected file", makeTarGz(t, reg(ManifestName, mb), reg("evil.sh", []byte("rm -rf /")), reg(RecordsName, recs)), ErrHostile, "unexpected entry"},
		{"records first", makeTarGz(t, reg(RecordsName, recs), reg(ManifestName, mb)), ErrHostile, "before"},
		{"two manifests", makeTarGz(t, reg(ManifestName, mb), reg(ManifestName, mb)), ErrHostile, "two manifests"},
		{"oversize manifest", makeTarGz(t, reg(ManifestName, bytes.Repeat([]byte(" "), 17<<20))), ErrHostile, "manifest of"},
		{"truncated", valid[:len(valid)*2/3], ErrDamaged, "truncated"},
		{"not gzip", []byte("plain text, not an archive"), ErrDamaged, "gzip"},
		{"tampered records", makeTarGz(t, reg(ManifestName, mb), reg(RecordsName, tampered)), ErrDamaged, "sha256"},
		{"records missing", makeTarGz(t, reg(ManifestName, mb)), ErrDamaged, "no records.jsonl"},
		{"fewer records than the manifest", makeTarGz(t, reg(ManifestName, manifestBytes(mFewer)), reg(RecordsName, fewer)), ErrDamaged, "1 records, the manifest says 3"},
		{"future format", makeTarGz(t, reg(ManifestName, manifestBytes(mFuture)), reg(RecordsName, recs)), ErrDamaged, "upgrade cmdai"},
		{"not a cmdai index", makeTarGz(t, reg(ManifestName, manifestBytes(mWrong)), reg(RecordsName, recs)), ErrDamaged, "not a cmdai index"},
		{"manifest without model", makeTarGz(t, reg(ManifestName, manifestBytes(mNoModel)), reg(RecordsName, recs)), ErrDamaged, "model"},
		{"manifest not json", makeTarGz(t, reg(ManifestName, []byte("{nope")), reg(RecordsName, recs)), ErrDamaged, "JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loaded := 0
			_, err := Read(context.Background(), bytes.NewReader(c.data), Limits{}, Handler{Record: func(Record) error { loaded++; return nil }})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v; want %v mentioning %q", err, c.want, c.msg)
			}
		})
	}
	if _, err := Read(context.Background(), bytes.NewReader(valid), Limits{}, Handler{}); err != nil {
		t.Errorf("the hand-made valid archive: %v", err)
	}
}

// TestRefusesDecompressionBomb: one valid record repeated to 1 GiB
// compresses about 1000:1 and passes every per-record check; the reader
// stops at the compression-ratio limit long before the end.
func TestRefusesDecompressionBomb(t *testing.T) {
	m, recs := validParts(t)
	line := recs[:bytes.IndexByte(recs, '\n')+1]
	n := (1 << 30) / len(line)
	size := int64(n * len(line))
	m.Records = n
	m.Files = map[string]FileSum{RecordsName: {Size: size, SHA256: strings.Repeat("0", 64)}}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	mb := manifestBytes(m)
	tw.WriteHeader(&tar.Header{Name: ManifestName, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(mb))})
	tw.Write(mb)
	tw.WriteHeader(&tar.Header{Name: RecordsName, Typeflag: tar.TypeReg, Mode: 0o644, Size: size})
	block := bytes.Repeat(line, (1<<20)/len(line))
	for written := 0; written < n; {
		k := min(len(block)/len(line), n-written)
		tw.Write(block[:k*len(line)])
		written += k
	}
	tw.Close()
	zw.Close()
	start := time.Now()
	loaded := 0
	_, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), Limits{}, Handler{Record: func(Record) error { loaded++; return nil }})
	if !errors.Is(err, ErrHostile) || !strings.Contains(err.Error(), "bomb") {
		t.Fatalf("bomb of %d compressed bytes: %v", buf.Len(), err)
	}
	t.Logf("refused %d compressed bytes after %d records in %v: %v", buf.Len(), loaded, time.Since(start), err)
}

func TestHandlerErrorPassesThrough(t *testing.T) {
	boom := fmt.Errorf("chroma said no")
	_, err := Read(context.Background(), bytes.NewReader(writeSample(t)), Limits{}, Handler{Record: func(Record) error { return boom }})
	if err != boom {
		t.Errorf("got %v, want the handler's own error", err)
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestReadManifestOnly: ReadManifest gives the manifest a full Read checks
// and stops there, so damaged records do not stop it; a tarball whose
// first entry is not a good manifest is refused as Read refuses it.
func TestReadManifestOnly(t *testing.T) {
	m, recs := validParts(t)
	tampered := bytes.Replace(recs, []byte("archiving utility"), []byte("archiving UTILITY"), 1)
	data := makeTarGz(t, reg(ManifestName, manifestBytes(m)), reg(RecordsName, tampered))
	got, err := ReadManifest(context.Background(), bytes.NewReader(data), Limits{})
	if err != nil {
		t.Fatalf("manifest before damaged records: %v", err)
	}
	if got.Distro != m.Distro || got.Model.SHA256 != m.Model.SHA256 || got.Records != m.Records {
		t.Errorf("got manifest %+v, want %+v", got, m)
	}
	if _, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Handler{}); !errors.Is(err, ErrDamaged) {
		t.Errorf("a full Read of the same tarball: %v, want damaged (else this test proves nothing)", err)
	}
	for name, bad := range map[string][]byte{
		"records first": makeTarGz(t, reg(RecordsName, recs), reg(ManifestName, manifestBytes(m))),
		"not gzip":      []byte("plain text"),
		"no manifest":   makeTarGz(t),
	} {
		if _, err := ReadManifest(context.Background(), bytes.NewReader(bad), Limits{}); !errors.Is(err, ErrHostile) && !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
}

// TestChecksumFileReplacedWhole: rewriting a checksums file replaces it
// (a new file renamed over the old) instead of truncating it in place, so
// a reader that opened the old one reads it whole, never a half-written
// new one.
func TestChecksumFileReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "chroma-index-debian-12.tar.gz")
	if err := os.WriteFile(p, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksumFile(p); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(p + ChecksumSuffix)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(p + ChecksumSuffix)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := os.WriteFile(p, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksumFile(p); err != nil {
		t.Fatal(err)
	}
	seen, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seen, old) {
		t.Errorf("a reader of the old checksums file saw %q, want the old %q: the file was rewritten in place", seen, old)
	}
	if err := VerifyFile(p, p+ChecksumSuffix); err != nil {
		t.Errorf("the new checksums file does not verify the new tarball: %v", err)
	}
}

// TestRefusesVectorsNotOfUnitLength (issue 45, finding 6): a record whose
// vector is huge (every value 1e30: it would be the first semantic
// answer to everything, the collection ranking by inner product), short
// or not a number is refused by name, even in a tarball whose checksums
// were made for it; a unit vector passes.
func TestRefusesVectorsNotOfUnitLength(t *testing.T) {
	for name, vec := range map[string][]float32{
		"huge":         {1e30, 1e30, 1e30, 1e30},
		"short":        {0.1, 0, 0, 0},
		"not a number": {float32(math.NaN()), 0, 0, 0},
		"zero":         {0, 0, 0, 0},
	} {
		recs := sampleRecords()
		recs[1].Embedding = vec
		var buf bytes.Buffer
		if err := Write(context.Background(), &buf, sampleManifest(), recs); err != nil {
			t.Fatal(err)
		}
		_, err := Read(context.Background(), bytes.NewReader(buf.Bytes()), Limits{}, Handler{Record: func(Record) error { return nil }})
		if err == nil || !strings.Contains(err.Error(), "grep.1#NAME") || !strings.Contains(err.Error(), "not 1") {
			t.Errorf("%s vector: %v, want the record refused for its length", name, err)
		}
	}
}
