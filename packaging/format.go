// Package packaging writes and reads cmdai index tarballs (a manifest and
// the records with their embeddings, checksummed) and refuses damaged or
// hostile ones.
//
// A tarball (gzip, tar) holds exactly two regular files, in this order:
//
//	manifest.json   what the index is: distro, model, counts, file sums
//	records.jsonl   one record per line, sorted by id:
//	                {"id":..., "document":..., "metadata":{...},
//	                 "embedding":"<base64 of little-endian float32s>"}
//
// Any Chroma server, of any version, can load the records through its API;
// nothing depends on how a server lays out its files. Beside the tarball,
// a checksums file in sha256sum format covers the tarball itself.
package packaging

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cmdai/cmdai/index"
)

// Names inside the tarball.
const (
	ManifestName = "manifest.json"
	RecordsName  = "records.jsonl"
)

// Format identifies a cmdai index tarball; FormatVersion numbers its
// layout. A reader refuses versions it does not know.
const (
	Format        = "cmdai-index"
	FormatVersion = 1
)

// Manifest describes an exported index.
type Manifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	Distro        string    `json:"distro"`
	OS            string    `json:"os"`
	Collection    string    `json:"collection"`
	Model         Model     `json:"model"`
	ToolVersion   string    `json:"tool_version"`
	ChromaVersion string    `json:"chroma_version"`
	Records       int       `json:"records"`
	Commands      int       `json:"commands"`
	BuiltAt       time.Time `json:"built_at"`
	// SourceCommands are the commands whose documentation the index holds.
	SourceCommands []string `json:"source_commands"`
	// Packages are the installed packages (dpkg, rpm) that own those
	// commands, each with the version whose pages were read: what the
	// index was built from, for a reader deciding whether it fits a
	// machine. Absent in tarballs from before it existed, and for
	// commands no package owns.
	Packages map[string]string `json:"packages,omitempty"`
	// CollectionMetadata is restored on import as it was.
	CollectionMetadata map[string]any `json:"collection_metadata"`
	// Files are the sizes and sha256s of the other entries.
	Files map[string]FileSum `json:"files"`
}

// Model names the embedding model the vectors come from.
type Model struct {
	Name    string `json:"name"`
	Dims    int    `json:"dims"`
	SHA256  string `json:"sha256"`
	Variant string `json:"variant"`
}

// FileSum is one entry's size and sha256 (hex).
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Record is one chunk with its vector.
type Record struct {
	ID        string
	Document  string
	Metadata  map[string]any
	Embedding []float32
}

type wireRecord struct {
	ID        string         `json:"id"`
	Document  string         `json:"document"`
	Metadata  map[string]any `json:"metadata"`
	Embedding string         `json:"embedding"`
}

func (r Record) marshal() ([]byte, error) {
	buf := make([]byte, 4*len(r.Embedding))
	for i, f := range r.Embedding {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(f))
	}
	return json.Marshal(wireRecord{ID: r.ID, Document: r.Document, Metadata: r.Metadata, Embedding: base64.StdEncoding.EncodeToString(buf)})
}

func unmarshalRecord(line []byte, dims int) (Record, error) {
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil {
		return Record{}, err
	}
	if w.ID == "" {
		return Record{}, errors.New("record without an id")
	}
	raw, err := base64.StdEncoding.DecodeString(w.Embedding)
	if err != nil {
		return Record{}, fmt.Errorf("record %s: embedding: %w", w.ID, err)
	}
	if len(raw) != 4*dims {
		return Record{}, fmt.Errorf("record %s: embedding has %d bytes, want %d (%d dims)", w.ID, len(raw), 4*dims, dims)
	}
	vec := make([]float32, dims)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	// the collection ranks by inner product: one huge vector would come
	// first for every request (issue 45, finding 6)
	if err := index.UnitVector(vec); err != nil {
		return Record{}, fmt.Errorf("record %s: %v: the tarball was altered or made by another model; export it again from a cmdai index", w.ID, err)
	}
	return Record{ID: w.ID, Document: w.Document, Metadata: w.Metadata, Embedding: vec}, nil
}

// Check validates a manifest on its own: what a reader needs before
// trusting anything else in the tarball.
func (m Manifest) Check() error {
	switch {
	case m.Format != Format:
		return fmt.Errorf("not a cmdai index: manifest format %q", m.Format)
	case m.FormatVersion < 1 || m.FormatVersion > FormatVersion:
		return fmt.Errorf("index format version %d is not supported by this cmdai (it reads up to %d): upgrade cmdai", m.FormatVersion, FormatVersion)
	case m.Distro == "" || m.Collection == "":
		return errors.New("manifest names no distribution or collection")
	case m.Model.Dims <= 0 || m.Model.Dims > 65536 || m.Model.SHA256 == "":
		return fmt.Errorf("manifest model is incomplete: %+v", m.Model)
	case m.Records < 0:
		return fmt.Errorf("manifest says %d records", m.Records)
	}
	if _, ok := m.Files[RecordsName]; !ok {
		return fmt.Errorf("manifest has no checksum for %s", RecordsName)
	}
	return nil
}
