package ship

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/packaging"
)

// A local copy is an index's export (the tarball Export writes) kept on
// this machine beside a seal: what Restore puts back when the index is
// deleted from a Chroma server other local users can reach (a private
// server the kernel could not isolate, chroma.Isolation). The seal is
// made with the record key, so a copy put back is one this machine kept
// of an index it had; and it carries where the index came from, so a
// restored import is still told from what this machine built.

// ErrNoCopy means no local copy of the collection is kept.
var ErrNoCopy = errors.New("no local copy of the index is kept")

const (
	copyExt = ".tar.gz"
	sealExt = ".seal.json"
)

// copySeal is a copy's seal, in the JSON file beside it.
type copySeal struct {
	Collection   string `json:"collection"`
	BuiltAt      string `json:"built_at"`
	Records      int    `json:"records"`
	SHA256       string `json:"sha256"`
	ImportedFrom string `json:"imported_from,omitempty"`
	Unsigned     bool   `json:"unsigned,omitempty"`
	MadeAt       string `json:"made_at"`
	MAC          string `json:"mac"`
}

func (s copySeal) parts() []string {
	return []string{s.Collection, s.BuiltAt, strconv.Itoa(s.Records), s.SHA256, s.ImportedFrom, strconv.FormatBool(s.Unsigned), s.MadeAt}
}

func copyPaths(dir, collection string) (tarball, seal string) {
	return filepath.Join(dir, collection+copyExt), filepath.Join(dir, collection+sealExt)
}

// Kept says what KeepCopy did.
type Kept struct {
	Path    string        `json:"path"`
	Records int           `json:"records"`
	Bytes   int64         `json:"bytes"`
	Took    time.Duration `json:"took_ns"`
	// Current: the copy kept already was of this very index (nothing written).
	Current bool `json:"current"`
}

// KeepCopy keeps a sealed copy of coll, a complete index, in dir
// (replacing an older one atomically), unless the one kept is already
// of this index (same build time and record count).
func KeepCopy(ctx context.Context, coll *chroma.Collection, key *index.RecordKey, dir string) (Kept, error) {
	start := time.Now()
	if err := coll.MetadataErr(); err != nil {
		return Kept{}, fmt.Errorf("keep a copy of %s: %s", coll.Name(), index.MetadataFailure(err))
	}
	meta := index.ParseMeta(coll.Metadata())
	if !meta.Complete {
		return Kept{}, fmt.Errorf("keep a copy of %s: the index is incomplete", coll.Name())
	}
	n, err := coll.Count(ctx)
	if err != nil {
		return Kept{}, err
	}
	path, sealPath := copyPaths(dir, coll.Name())
	builtAt := meta.BuiltAt.UTC().Format(time.RFC3339Nano)
	if old, err := readSeal(sealPath, key); err == nil && old.Collection == coll.Name() && old.BuiltAt == builtAt && old.Records == n {
		if fi, err := os.Stat(path); err == nil {
			return Kept{Path: path, Records: n, Bytes: fi.Size(), Current: true, Took: time.Since(start)}, nil
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Kept{}, fmt.Errorf("keep a copy of %s: %w", coll.Name(), err)
	}
	h := sha256.New()
	var m packaging.Manifest
	err = safefile.WriteFile(path, 0o600, func(w io.Writer) error {
		var err error
		m, err = Export(ctx, coll, io.MultiWriter(w, h), coll.ServerVersion())
		return err
	})
	if err != nil {
		return Kept{}, fmt.Errorf("keep a copy of %s: %w", coll.Name(), err)
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	s := copySeal{Collection: coll.Name(), BuiltAt: builtAt, Records: m.Records, SHA256: hex.EncodeToString(h.Sum(nil)),
		ImportedFrom: meta.ImportedFrom, Unsigned: meta.Unsigned, MadeAt: time.Now().UTC().Format(time.RFC3339)}
	if s.MAC, err = key.SealCopy(s.parts()...); err != nil {
		return Kept{}, err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Kept{}, err
	}
	if err := safefile.WriteBytes(sealPath, append(data, '\n'), 0o600); err != nil {
		return Kept{}, fmt.Errorf("keep a copy of %s: %w", coll.Name(), err)
	}
	return Kept{Path: path, Records: m.Records, Bytes: size, Took: time.Since(start)}, nil
}

// readSeal reads and checks the seal at path: ErrNoCopy when there is
// none, a verification error when this machine's key did not make it.
func readSeal(path string, key *index.RecordKey) (copySeal, error) {
	data, _, err := safefile.ReadRegular(path, 1<<20)
	if errors.Is(err, os.ErrNotExist) {
		return copySeal{}, ErrNoCopy
	}
	if err != nil {
		return copySeal{}, err
	}
	var s copySeal
	if err := json.Unmarshal(data, &s); err != nil {
		return copySeal{}, verification(fmt.Errorf("the local copy's seal %s is unreadable (%v): it was not written by cmdai", path, err))
	}
	if err := key.CheckCopy(s.MAC, s.parts()...); err != nil {
		return copySeal{}, verification(fmt.Errorf("the local copy's seal %s was not made with this machine's record key (%v): the copy is not put back", path, err))
	}
	return s, nil
}

// HasCopy tells whether a local copy of collection is kept in dir.
func HasCopy(dir, collection string) bool {
	_, seal := copyPaths(dir, collection)
	_, err := os.Stat(seal)
	return err == nil
}

// ForgetCopy removes the local copy of collection kept in dir, if any:
// `index clear` and a build whose server no one else can reach.
func ForgetCopy(dir, collection string) error {
	path, seal := copyPaths(dir, collection)
	// the seal first: a copy without one is never put back
	for _, p := range []string{seal, path} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("forget the local copy of %s: %w", collection, err)
		}
	}
	return nil
}

// Restored says what Restore put back.
type Restored struct {
	Path    string        `json:"path"`
	Records int           `json:"records"`
	MadeAt  string        `json:"made_at"`
	Took    time.Duration `json:"took_ns"`
}

// Restore puts collection back on store from the local copy kept in dir
// (ErrNoCopy when none is), once its seal and checksum hold: imported
// as any tarball is (atomically, every record checked), with the origin
// the index had when the copy was made.
func Restore(ctx context.Context, store *chroma.Store, key *index.RecordKey, dir, collection string) (Restored, error) {
	start := time.Now()
	path, sealPath := copyPaths(dir, collection)
	s, err := readSeal(sealPath, key)
	if err != nil {
		return Restored{}, err
	}
	if s.Collection != collection {
		return Restored{}, verification(fmt.Errorf("the local copy %s is sealed as %s's, not %s's: not put back", path, s.Collection, collection))
	}
	if got, _, err := packaging.FileSHA256(path); err != nil {
		return Restored{}, fmt.Errorf("restore %s: %w", collection, err)
	} else if got != s.SHA256 {
		return Restored{}, verification(fmt.Errorf("%w: the local copy %s has sha256 %s, its seal says %s: it is damaged, and not put back", packaging.ErrChecksum, path, got, s.SHA256))
	}
	f, err := os.Open(path)
	if err != nil {
		return Restored{}, fmt.Errorf("restore %s: %w", collection, err)
	}
	defer f.Close()
	check := func(m packaging.Manifest) (Target, error) {
		if m.Collection != collection || m.Records != s.Records {
			return Target{}, verification(fmt.Errorf("the local copy %s holds %s (%d records), not what its seal says", path, m.Collection, m.Records))
		}
		return Target{Collection: collection, Distro: m.Distro, OS: m.OS}, nil
	}
	m, _, err := Import(chroma.WithoutRestore(ctx), store, f, ImportOptions{Check: check, From: s.ImportedFrom, Unsigned: s.Unsigned})
	if err != nil {
		return Restored{}, fmt.Errorf("restore %s from its local copy %s: %w", collection, path, err)
	}
	return Restored{Path: path, Records: m.Records, MadeAt: s.MadeAt, Took: time.Since(start)}, nil
}

// KeepAfterWrite keeps, after a write of collection on conn, the copy
// an index deleted behind cmdai's back is put back from: only while
// the private server this process started can be reached by other
// local users (chroma.Isolation). An isolated one needs none, and an
// older copy is forgotten rather than put back later in place of a
// newer index; serve keeps the copy of what is written under its lease,
// and a --chroma-url server's indexes are its operators' to keep. ok
// false: no copy kept; iso says who can reach the server.
func KeepAfterWrite(ctx context.Context, conn *connect.Connection, key *index.RecordKey, dir, collection string) (kept Kept, iso chroma.Isolation, ok bool, err error) {
	iso, started := conn.Isolation()
	if !started {
		return Kept{}, iso, false, nil
	}
	if iso.Isolated() {
		return Kept{}, iso, false, ForgetCopy(dir, collection)
	}
	ctx = chroma.WithoutRestore(ctx)
	coll, err := conn.Store.OpenCollection(ctx, collection)
	if err != nil {
		return Kept{}, iso, false, err
	}
	kept, err = KeepCopy(ctx, coll, key, dir)
	return kept, iso, err == nil, err
}

// Restorer puts back an index deleted from the private server behind
// cmdai's back from the copy kept in dir (Restore), telling say before
// and after: what a connection that started the private server sets on
// its store (chroma.Store.SetRestorer).
func Restorer(key *index.RecordKey, dir string, say func(format string, a ...any)) chroma.Restorer {
	return func(ctx context.Context, st *chroma.Store, name string) (bool, error) {
		if !HasCopy(dir, name) {
			return false, nil
		}
		say("cmdai: the index %s was deleted from the private Chroma outside cmdai (`cmdai doctor` says who can reach it); putting it back from its sealed local copy...\n", name)
		r, err := Restore(ctx, st, key, dir, name)
		if err != nil {
			return false, err
		}
		say("cmdai: put %s back: %d records from the copy kept at %s, in %.1f s\n", name, r.Records, r.MadeAt, r.Took.Seconds())
		return true, nil
	}
}
