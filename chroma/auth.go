package chroma

// Authenticator keeps answers honest: the private server listens on
// loopback TCP and chromadb 1.x has no authentication to turn on (its
// Rust server ignores the Python one's auth settings), and a shared one
// may be open to more, so anyone who can reach it could rewrite a
// record. Upsert seals every record; Get, GetPage, All and Query return
// only those that Open passes (index.RecordKey is cmdai's).
type Authenticator interface {
	// Seal adds the authenticator to md, record id's metadata as stored.
	Seal(id, document string, md map[string]any) error
	// Open checks a record read back, counting a failure, and removes
	// the authenticator from md.
	Open(id, document string, md map[string]any) error
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
	return s.auth == nil || s.auth.Open(r.ID, r.Document, r.Metadata) == nil
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
