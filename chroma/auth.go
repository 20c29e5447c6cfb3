package chroma

import (
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/chroma/wire"
)

// Authenticator keeps answers honest: the private server listens on
// loopback TCP and chromadb 1.x has no authentication to turn on (its
// Rust server ignores the Python one's auth settings), and a shared one
// may be open to more, so anyone who can reach it could rewrite a
// record or its vector. Upsert seals every record; Get, GetPage, All,
// Embeddings and Query return only those that Open passes, with their
// vectors when they read them (index.RecordKey is cmdai's).
type Authenticator interface {
	// Seal adds the authenticators to md, record id's metadata as
	// stored: the record's and its vector's (vec).
	Seal(id, document string, vec []float32, md map[string]any) error
	// Open checks a record read back, its vector too when it was read
	// (vec not nil), counting a failure, and removes the authenticators
	// from md.
	Open(id, document string, vec []float32, md map[string]any) error
	// Refused counts a record a reader refused for err (its vector
	// changed on the server since it was checked).
	Refused(err error)
	// SealMeta adds the authenticator to a collection's metadata (its
	// keys but Chroma's own), about to be written.
	SealMeta(md map[string]any) error
	// OpenMeta checks a collection's metadata read back (its keys but
	// Chroma's own) and removes the authenticator.
	OpenMeta(md map[string]any) error
}

// checked keeps the records that pass their check, with their text when
// withText (it is read for the check).
func (s *Store) checked(recs []Record, withText bool) []Record {
	out := recs[:0]
	for _, r := range recs {
		if s.passes(r) {
			if !withText {
				r.Document = ""
			}
			out = append(out, r)
		}
	}
	return out
}

func (s *Store) passes(r Record) bool {
	if r.Metadata == nil {
		r.Metadata = map[string]any{}
	}
	var vec []float32
	if r.Embedding != nil {
		vec = r.Embedding
	}
	return s.auth == nil || s.auth.Open(r.ID, r.Document, vec, r.Metadata) == nil
}

// Refuse counts record id, which a reader refused: the server ranked it
// by a vector that is not the one sealed (nothing when the store checks
// nothing).
func (c *Collection) Refuse(id string) {
	if c.store.auth != nil {
		c.store.auth.Refused(fmt.Errorf("record %s ranks by a vector that is not the one sealed", id))
	}
}

// Auth is the collection's Authenticator (nil: none).
func (c *Collection) Auth() Authenticator { return c.store.auth }

// Unchecked is the collection read with no check: for counting the
// records that fail one (`index status`, doctor).
func (c *Collection) Unchecked() *Collection {
	s := *c.store
	s.auth = nil
	return &Collection{c: c.c, store: &s, space: c.space}
}

// chromaKey tells Chroma's own keys in a collection's metadata
// (hnsw:space), which it sets itself: not sealed.
func chromaKey(k string) bool { return strings.HasPrefix(k, "hnsw:") }

// split parts md into Chroma's keys and cmdai's (fresh maps).
func split(md map[string]any) (chromas, ours map[string]any) {
	chromas, ours = map[string]any{}, map[string]any{}
	for k, v := range md {
		if chromaKey(k) {
			chromas[k] = v
		} else {
			ours[k] = v
		}
	}
	return chromas, ours
}

// sealMeta is meta with its authenticator, as CreateCollection and
// SetMetadata write it.
func (s *Store) sealMeta(meta map[string]any) (map[string]any, error) {
	out, ours := split(meta)
	if s.auth != nil {
		if err := s.auth.SealMeta(ours); err != nil {
			return nil, fmt.Errorf("authenticate the collection's metadata: %w", err)
		}
	}
	for k, v := range ours {
		out[k] = v
	}
	return out, nil
}

// Metadata returns the collection's metadata as plain values, without its
// authenticator. When that check fails, only Chroma's own keys: nothing
// someone else wrote reaches a reader (MetadataErr says why).
func (c *Collection) Metadata() map[string]any {
	md, _ := c.openMeta()
	return md
}

// MetadataErr is the check of the collection's metadata (nil: it passes,
// or the store checks nothing): what the Authenticator's OpenMeta says.
func (c *Collection) MetadataErr() error {
	_, err := c.openMeta()
	return err
}

func (c *Collection) openMeta() (map[string]any, error) {
	raw := wire.Map(c.c.Metadata())
	if c.store.auth == nil {
		return raw, nil
	}
	out, ours := split(raw)
	if err := c.store.auth.OpenMeta(ours); err != nil {
		return out, err
	}
	for k, v := range ours {
		out[k] = v
	}
	return out, nil
}
