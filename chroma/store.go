package chroma

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v2 "github.com/amikos-tech/chroma-go/pkg/api/v2"
	"github.com/amikos-tech/chroma-go/pkg/embeddings"

	"github.com/cmdai/cmdai/chroma/wire"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// ErrUnreachable means no Chroma server answered at the configured URL.
var ErrUnreachable = errors.New("chroma unreachable")

// ErrNoCollection means the collection does not exist.
var ErrNoCollection = errors.New("no such collection")

// Config says how to reach a server.
type Config struct {
	URL      string
	Tenant   string // "" is Chroma's default_tenant
	Database string // "" is Chroma's default_database
	// Token is sent in TokenHeader ("Authorization" as a Bearer token,
	// the default, or "X-Chroma-Token").
	Token       string
	TokenHeader string
	// Timeout bounds each request; 0 means 60 s.
	Timeout time.Duration
	// Auth seals the records written and checks those read (nil:
	// neither; cmd/cmdai always sets it).
	Auth Authenticator
}

// Store is a connection to a Chroma server.
type Store struct {
	client   v2.Client
	URL      string
	Version  string
	maxBatch int
	auth     Authenticator

	// restore puts back a collection found missing (SetRestorer).
	restore *restoring
}

// restoring is a store's Restorer, run once at a time so that parallel
// callers wait for one restore.
type restoring struct {
	mu sync.Mutex
	fn Restorer
}

// Restorer puts collection name back on st when it was deleted behind
// cmdai's back, from what it kept (ship.Restore); ok false when it kept
// nothing to put back.
type Restorer func(ctx context.Context, st *Store, name string) (ok bool, err error)

// SetRestorer makes OpenCollection and RestoreMissing put back a missing
// collection with r: set on a private server's store only (a copy kept
// of its index is never written to another server).
func (s *Store) SetRestorer(r Restorer) { s.restore = &restoring{fn: r} }

// PutBackError is a missing collection whose local copy could not be
// put back (a seal or checksum that does not hold, a failed import): it
// is ErrNoCollection too, so that a build makes the index anew.
type PutBackError struct {
	Name, URL string
	Err       error
}

func (e *PutBackError) Error() string {
	return fmt.Sprintf("the index %s was deleted from the Chroma server at %s outside cmdai, and its local copy could not be put back: %v", e.Name, e.URL, e.Err)
}

func (e *PutBackError) Unwrap() []error { return []error{ErrNoCollection, e.Err} }

type noRestoreKey struct{}

// WithoutRestore makes the store's calls under ctx leave a missing
// collection missing: what the restore itself, and `index clear`, use.
func WithoutRestore(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRestoreKey{}, true)
}

// RestoreMissing puts collection name back when it is missing and the
// store's Restorer kept a copy of it: true when it did. Parallel callers
// wait for one restore.
func (s *Store) RestoreMissing(ctx context.Context, name string) (bool, error) {
	if s.restore == nil || ctx.Value(noRestoreKey{}) != nil {
		return false, nil
	}
	s.restore.mu.Lock()
	defer s.restore.mu.Unlock()
	names, err := s.collectionNames(ctx)
	if err != nil || contains(names, name) {
		return false, err
	}
	ok, err := s.restore.fn(WithoutRestore(ctx), s, name)
	if err != nil {
		return false, &PutBackError{Name: name, URL: s.URL, Err: err}
	}
	return ok, nil
}

// Connect checks that the server answers (heartbeat, version, limits) and
// returns a Store for the configured tenant and database.
func Connect(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URL == "" {
		return nil, errors.New("no chroma URL")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	// Each call is bounded as a whole (a server that accepts and then
	// stalls cannot hang cmdai), and connecting by netwait's dial timeout.
	base, hc := HTTPClient(cfg.URL, timeout)
	opts := []v2.ClientOption{v2.WithBaseURL(base), v2.WithHTTPClient(hc)}
	if cfg.Tenant != "" || cfg.Database != "" {
		t, d := cfg.Tenant, cfg.Database
		if t == "" {
			t = v2.DefaultTenant
		}
		if d == "" {
			d = v2.DefaultDatabase
		}
		opts = append(opts, v2.WithDatabaseAndTenant(d, t))
	}
	if cfg.Token != "" {
		header := v2.AuthorizationTokenHeader
		if strings.EqualFold(cfg.TokenHeader, string(v2.XChromaTokenHeader)) {
			header = v2.XChromaTokenHeader
		} else if cfg.TokenHeader != "" && !strings.EqualFold(cfg.TokenHeader, string(v2.AuthorizationTokenHeader)) {
			return nil, fmt.Errorf("token header %q: use Authorization or X-Chroma-Token", cfg.TokenHeader)
		}
		opts = append(opts, v2.WithAuth(v2.NewTokenAuthCredentialsProvider(cfg.Token, header)))
	}
	client, err := v2.NewHTTPClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("chroma client for %s: %w", cfg.URL, err)
	}
	s := &Store{client: client, URL: strings.TrimRight(cfg.URL, "/"), auth: cfg.Auth}
	pctx, cancel := context.WithTimeout(ctx, min(10*time.Second, timeout))
	defer cancel()
	if err := client.Heartbeat(pctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("%w: no heartbeat from %s: %v", ErrUnreachable, s.URL, err)
	}
	if s.Version, err = client.GetVersion(pctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("%w: version of %s: %v", ErrUnreachable, s.URL, err)
	}
	if err := client.PreFlight(pctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("chroma %s: pre-flight checks: %w", s.URL, err)
	}
	s.maxBatch = maxBatchSize(pctx, cfg)
	return s, nil
}

// maxBatchSize reads the server's limit from its pre-flight answer
// (chroma-go keeps it private); servers that do not say get a
// conservative default.
func maxBatchSize(ctx context.Context, cfg Config) int {
	const fallback = 1000
	base, hc := HTTPClient(cfg.URL, 10*time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/pre-flight-checks", nil)
	if err != nil {
		return fallback
	}
	if cfg.Token != "" {
		if strings.EqualFold(cfg.TokenHeader, string(v2.XChromaTokenHeader)) {
			req.Header.Set(string(v2.XChromaTokenHeader), cfg.Token)
		} else {
			req.Header.Set("Authorization", "Bearer "+cfg.Token)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fallback
	}
	defer resp.Body.Close()
	var pf struct {
		MaxBatchSize int `json:"max_batch_size"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&pf) != nil || pf.MaxBatchSize <= 0 {
		return fallback
	}
	return pf.MaxBatchSize
}

// MaxBatchSize is the largest number of records the server takes at once.
func (s *Store) MaxBatchSize() int { return s.maxBatch }

// Close releases the client's connections.
func (s *Store) Close() error { return s.client.Close() }

// Heartbeat checks the server answers.
func (s *Store) Heartbeat(ctx context.Context) error {
	if err := s.client.Heartbeat(ctx); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, s.URL, err)
	}
	return nil
}

// precomputed is the embedding function given to chroma-go so that it
// never builds its default one (which downloads a model): cmdai always
// passes its own vectors, so being asked to embed is a bug.
type precomputed struct{}

var errPrecomputed = errors.New("cmdai passes precomputed embeddings; chroma must not embed")

func (precomputed) EmbedDocuments(context.Context, []string) ([]embeddings.Embedding, error) {
	return nil, errPrecomputed
}
func (precomputed) EmbedQuery(context.Context, string) (embeddings.Embedding, error) {
	return nil, errPrecomputed
}
func (precomputed) Name() string                                  { return "cmdai-precomputed" }
func (precomputed) GetConfig() embeddings.EmbeddingFunctionConfig { return nil }
func (precomputed) DefaultSpace() embeddings.DistanceMetric       { return Space }
func (precomputed) SupportedSpaces() []embeddings.DistanceMetric {
	return []embeddings.DistanceMetric{Space, embeddings.COSINE}
}

// Space is the distance of the collections cmdai creates: inner product.
// The vectors are unit length (the model normalizes them), so its
// distance, 1 - a.b, is the cosine distance, and the ranking the same.
// Not Chroma's cosine space: that one stores each vector divided by its
// norm and multiplies it back when read, which changes the last bit of
// about a quarter of the values, so an index exported after an import
// would not be the tarball imported. Collections made before keep the
// space they were made with.
const Space = embeddings.IP

// Collection is one cmdai collection.
type Collection struct {
	c     v2.Collection
	store *Store
	// space is the distance the collection was created with, which
	// metadata updates must repeat.
	space string
}

// Name is the collection's name.
func (c *Collection) Name() string { return c.c.Name() }

// ServerVersion is the version of the Chroma server holding it.
func (c *Collection) ServerVersion() string { return c.store.Version }

// gone turns the server's 404 for a collection cmdai opened into
// ErrNoCollection with what happened and what to do: it was deleted
// while open, by `index clear` or by anyone who reaches the server (see
// Isolation).
func (c *Collection) gone(err error) error {
	if !strings.Contains(err.Error(), "Error (404) NotFoundError") {
		return err
	}
	return exitcode.With(exitcode.NoIndex, fmt.Errorf("%w: the index %s was deleted from the Chroma server at %s while cmdai had it open (by `cmdai index clear`, or by anyone who reaches that server: `cmdai doctor` says who can reach the private one); build it again with `cmdai index init`, or import it again (%v)", ErrNoCollection, c.Name(), c.store.URL, err))
}

// CreateCollection creates (or opens, when it exists) a collection in
// inner-product space (Space) with the given metadata, sealed by the
// store's Authenticator.
func (s *Store) CreateCollection(ctx context.Context, name string, meta map[string]any) (*Collection, error) {
	meta, err := s.sealMeta(meta)
	if err != nil {
		return nil, err
	}
	md, err := v2.NewMetadataFromMapStrict(meta)
	if err != nil {
		return nil, fmt.Errorf("collection metadata: %w", err)
	}
	c, err := s.client.GetOrCreateCollection(ctx, name,
		v2.WithCollectionMetadataCreate(md),
		// After the metadata: WithCollectionMetadataCreate replaces it,
		// and a collection without hnsw:space is silently L2.
		v2.WithHNSWSpaceCreate(Space),
		v2.WithEmbeddingFunctionCreate(precomputed{}),
		v2.WithDisableEFConfigStorage(),
	)
	if err != nil {
		return nil, fmt.Errorf("create collection %s on %s: %w", name, s.URL, err)
	}
	return newCollection(c, s), nil
}

// OpenCollection opens an existing collection (ErrNoCollection if absent).
func (s *Store) OpenCollection(ctx context.Context, name string) (*Collection, error) {
	names, err := s.collectionNames(ctx)
	if err != nil {
		return nil, err
	}
	if !contains(names, name) {
		restored, err := s.RestoreMissing(ctx, name)
		if err != nil {
			return nil, err
		}
		if !restored {
			return nil, fmt.Errorf("%w: %s on %s", ErrNoCollection, name, s.URL)
		}
	}
	c, err := s.client.GetCollection(ctx, name, v2.WithEmbeddingFunctionGet(precomputed{}))
	if err != nil {
		return nil, fmt.Errorf("open collection %s on %s: %w", name, s.URL, err)
	}
	return newCollection(c, s), nil
}

// newCollection wraps c, noting its space (an existing collection's, which
// may be cosine).
func newCollection(c v2.Collection, s *Store) *Collection {
	space, _ := wire.Map(c.Metadata())[v2.HNSWSpace].(string)
	if space == "" {
		space = string(Space)
	}
	return &Collection{c: c, store: s, space: space}
}

// DeleteCollection removes a collection (ErrNoCollection if absent).
func (s *Store) DeleteCollection(ctx context.Context, name string) error {
	names, err := s.collectionNames(ctx)
	if err != nil {
		return err
	}
	if !contains(names, name) {
		return fmt.Errorf("%w: %s on %s", ErrNoCollection, name, s.URL)
	}
	if err := s.client.DeleteCollection(ctx, name); err != nil {
		return fmt.Errorf("delete collection %s on %s: %w", name, s.URL, err)
	}
	return nil
}

// RenameCollection renames a collection (used to swap a finished import
// in place of the previous index).
func (s *Store) RenameCollection(ctx context.Context, from, to string) error {
	c, err := s.OpenCollection(ctx, from)
	if err != nil {
		return err
	}
	if err := c.c.ModifyName(ctx, to); err != nil {
		return fmt.Errorf("rename collection %s to %s: %w", from, to, err)
	}
	return nil
}

// CollectionInfo describes a collection.
type CollectionInfo struct {
	Name     string         `json:"name"`
	Count    int            `json:"count"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ListCollections lists the collections whose names start with prefix,
// sorted by name, with their counts.
func (s *Store) ListCollections(ctx context.Context, prefix string) ([]CollectionInfo, error) {
	names, err := s.collectionNames(ctx)
	if err != nil {
		return nil, err
	}
	var out []CollectionInfo
	for _, n := range names {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		c, err := s.OpenCollection(ctx, n)
		if err != nil {
			return nil, err
		}
		cnt, err := c.Count(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, CollectionInfo{Name: n, Count: cnt, Metadata: c.Metadata()})
	}
	return out, nil
}

// collectionNames pages through the database's collections. chroma-go's
// ListCollections would try to rebuild each one's stored embedding
// function, so only the names are taken from it and each collection is
// then opened with ours.
func (s *Store) collectionNames(ctx context.Context) ([]string, error) {
	var names []string
	const page = 100
	for off := 0; ; off += page {
		cs, err := s.client.ListCollections(ctx, v2.ListWithLimit(page), v2.ListWithOffset(off))
		if err != nil {
			return nil, fmt.Errorf("list collections on %s: %w", s.URL, err)
		}
		for _, c := range cs {
			names = append(names, c.Name())
		}
		if len(cs) < page {
			break
		}
	}
	sort.Strings(names)
	return names, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SetMetadata replaces the collection's metadata (keeping the space it
// was created with), sealed as CreateCollection's.
func (c *Collection) SetMetadata(ctx context.Context, meta map[string]any) error {
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m[v2.HNSWSpace] = c.space
	m, err := c.store.sealMeta(m)
	if err != nil {
		return err
	}
	md, err := v2.NewMetadataFromMapStrict(m)
	if err != nil {
		return fmt.Errorf("collection metadata: %w", err)
	}
	if err := c.c.ModifyMetadata(ctx, md); err != nil {
		return fmt.Errorf("update metadata of %s: %w", c.Name(), err)
	}
	return nil
}

// Count is the number of records.
func (c *Collection) Count(ctx context.Context) (int, error) {
	n, err := c.c.Count(ctx)
	if err != nil {
		return 0, c.gone(fmt.Errorf("count %s: %w", c.Name(), err))
	}
	return n, nil
}

// Record is one stored chunk.
type Record struct {
	ID        string         `json:"id"`
	Document  string         `json:"document"`
	Metadata  map[string]any `json:"metadata"`
	Embedding []float32      `json:"embedding,omitempty"`
}

// Upsert writes records in batches no larger than the server accepts.
// Ids are stable, so writing the same chunks again updates in place.
func (c *Collection) Upsert(ctx context.Context, recs []Record) error {
	for start := 0; start < len(recs); start += c.store.maxBatch {
		batch := recs[start:min(start+c.store.maxBatch, len(recs))]
		ids := make([]v2.DocumentID, len(batch))
		docs := make([]string, len(batch))
		metas := make([]v2.DocumentMetadata, len(batch))
		embs := make([]embeddings.Embedding, len(batch))
		for i, r := range batch {
			if len(r.Embedding) == 0 {
				return fmt.Errorf("record %s has no embedding", r.ID)
			}
			doc, plain := wire.Text(r.Document), wire.Plain(r.Metadata)
			if c.store.auth != nil {
				if err := c.store.auth.Seal(r.ID, doc, r.Embedding, plain); err != nil {
					return fmt.Errorf("authenticate record %s: %w", r.ID, err)
				}
			}
			ids[i], docs[i] = v2.DocumentID(r.ID), doc
			md, err := v2.NewDocumentMetadataFromMap(plain)
			if err != nil {
				return fmt.Errorf("metadata of %s: %w", r.ID, err)
			}
			metas[i] = md
			embs[i] = embeddings.NewEmbeddingFromFloat32(r.Embedding)
		}
		if err := c.c.Upsert(ctx, v2.WithIDs(ids...), v2.WithTexts(docs...), v2.WithMetadatas(metas...), v2.WithEmbeddings(embs...)); err != nil {
			return fmt.Errorf("upsert %d records into %s: %w", len(batch), c.Name(), err)
		}
	}
	return nil
}

// Delete removes records by id.
func (c *Collection) Delete(ctx context.Context, ids []string) error {
	for start := 0; start < len(ids); start += c.store.maxBatch {
		batch := ids[start:min(start+c.store.maxBatch, len(ids))]
		dids := make([]v2.DocumentID, len(batch))
		for i, id := range batch {
			dids[i] = v2.DocumentID(id)
		}
		if err := c.c.Delete(ctx, v2.WithIDs(dids...)); err != nil {
			return fmt.Errorf("delete %d records from %s: %w", len(batch), c.Name(), err)
		}
	}
	return nil
}

// Hit is one query result.
type Hit struct {
	Record
	// Distance is the cosine distance (1 - cosine similarity).
	Distance float64 `json:"distance"`
}

// Query returns the n records nearest to vec (that pass their check,
// their vectors too: a record whose vector was replaced ranks by the
// replacement, and is dropped). The vectors are read for the check and
// not returned. It is the slow way (about 40 ms for 200 records of
// this machine's index against 4 for QueryNearest, most of it decoding
// the vectors): Searcher asks it only when it holds no keyword index.
func (c *Collection) Query(ctx context.Context, vec []float32, n int) ([]Hit, error) {
	include := []v2.Include{v2.IncludeDocuments, v2.IncludeMetadatas, v2.IncludeDistances}
	if c.store.auth != nil {
		include = append(include, v2.IncludeEmbeddings)
	}
	return c.query(ctx, vec, n, include...)
}

// QueryNearest returns the ids and distances of the n records nearest to
// vec, without their text, metadata or vectors: for a caller that holds
// those already (checked then), so unchecked: it compares each distance
// with the one of the vector it holds (search's nearest, with recvec).
// Metadata is most of a query's time on the server (about 10 of 14 ms
// for 100 records of this machine's index, BENCHMARKS.md).
func (c *Collection) QueryNearest(ctx context.Context, vec []float32, n int) ([]Hit, error) {
	return c.query(ctx, vec, n, v2.IncludeDistances)
}

func (c *Collection) query(ctx context.Context, vec []float32, n int, include ...v2.Include) ([]Hit, error) {
	res, err := c.c.Query(ctx,
		v2.WithQueryEmbeddings(embeddings.NewEmbeddingFromFloat32(vec)),
		v2.WithNResults(n),
		v2.WithInclude(include...),
	)
	if err != nil {
		return nil, c.gone(fmt.Errorf("query %s: %w", c.Name(), err))
	}
	ids := res.GetIDGroups()
	if len(ids) == 0 {
		return nil, nil
	}
	docs, metas, dists, embs := res.GetDocumentsGroups(), res.GetMetadatasGroups(), res.GetDistancesGroups(), res.GetEmbeddingsGroups()
	checked := slices.Contains(include, v2.IncludeMetadatas) // not QueryNearest's
	hits := make([]Hit, 0, len(ids[0]))
	for i, id := range ids[0] {
		h := Hit{Record: Record{ID: string(id)}}
		if len(docs) > 0 && i < len(docs[0]) && docs[0][i] != nil {
			h.Document = docs[0][i].ContentString()
		}
		if len(metas) > 0 && i < len(metas[0]) {
			h.Metadata = wire.Map(metas[0][i])
		}
		if len(dists) > 0 && i < len(dists[0]) {
			h.Distance = float64(dists[0][i])
		}
		if len(embs) > 0 && i < len(embs[0]) && embs[0][i] != nil {
			h.Embedding = embs[0][i].ContentAsFloat32()
		}
		if checked && !c.store.passes(h.Record) {
			continue
		}
		h.Embedding = nil // read for the check
		hits = append(hits, h)
	}
	return hits, nil
}

// Include chooses what GetPage returns beside ids and metadata.
type Include struct {
	Documents, Embeddings bool
	// Where keeps records whose metadata has these exact string values.
	Where map[string]string
}

// GetPage returns up to limit records from offset, in the server's order
// (those that pass their check).
func (c *Collection) GetPage(ctx context.Context, offset, limit int, inc Include) ([]Record, error) {
	recs, err := c.fetch(ctx, c.pageOptions(offset, limit, inc))
	return c.store.checked(recs, inc.Documents), err
}

// pageOptions is GetPage's request.
func (c *Collection) pageOptions(offset, limit int, inc Include) []v2.CollectionGetOption {
	include := []v2.Include{v2.IncludeMetadatas}
	if inc.Documents || c.store.auth != nil {
		include = append(include, v2.IncludeDocuments)
	}
	if inc.Embeddings {
		include = append(include, v2.IncludeEmbeddings)
	}
	opts := []v2.CollectionGetOption{v2.WithLimit(limit), v2.WithOffset(offset), v2.WithInclude(include...)}
	if len(inc.Where) > 0 {
		keys := make([]string, 0, len(inc.Where))
		for k := range inc.Where {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var clauses []v2.WhereClause
		for _, k := range keys {
			clauses = append(clauses, v2.EqString(v2.Key(k), inc.Where[k]))
		}
		if len(clauses) == 1 {
			opts = append(opts, v2.WithWhere(clauses[0]))
		} else {
			opts = append(opts, v2.WithWhere(v2.And(clauses...)))
		}
	}
	return opts
}

// Embeddings returns the vectors of the records with these ids (at least
// one), by id: those that pass their check (read with their text and
// metadata for it).
func (c *Collection) Embeddings(ctx context.Context, ids []string) (map[string][]float32, error) {
	include := []v2.Include{v2.IncludeEmbeddings}
	if c.store.auth != nil {
		include = append(include, v2.IncludeMetadatas, v2.IncludeDocuments)
	}
	recs, err := c.get(ctx, []v2.CollectionGetOption{v2.WithIDs(documentIDs(ids)...), v2.WithInclude(include...)})
	out := make(map[string][]float32, len(recs))
	for _, r := range recs {
		out[r.ID] = r.Embedding
	}
	return out, err
}

func documentIDs(ids []string) []v2.DocumentID {
	out := make([]v2.DocumentID, len(ids))
	for i, id := range ids {
		out[i] = v2.DocumentID(id)
	}
	return out
}

// Get returns the records with these ids (those that exist), with their
// documents and metadata.
func (c *Collection) Get(ctx context.Context, ids []string) ([]Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return c.get(ctx, []v2.CollectionGetOption{v2.WithIDs(documentIDs(ids)...), v2.WithInclude(v2.IncludeMetadatas, v2.IncludeDocuments)})
}

func (c *Collection) get(ctx context.Context, opts []v2.CollectionGetOption) ([]Record, error) {
	recs, err := c.fetch(ctx, opts)
	return c.store.checked(recs, true), err
}

func (c *Collection) fetch(ctx context.Context, opts []v2.CollectionGetOption) ([]Record, error) {
	res, err := c.c.Get(ctx, opts...)
	if err != nil {
		return nil, c.gone(fmt.Errorf("read %s: %w", c.Name(), err))
	}
	ids, docs, metas, embs := res.GetIDs(), res.GetDocuments(), res.GetMetadatas(), res.GetEmbeddings()
	out := make([]Record, 0, len(ids))
	for i, id := range ids {
		r := Record{ID: string(id)}
		if i < len(docs) && docs[i] != nil {
			r.Document = docs[i].ContentString()
		}
		if i < len(metas) {
			r.Metadata = wire.Map(metas[i])
		}
		if i < len(embs) && embs[i] != nil {
			r.Embedding = embs[i].ContentAsFloat32()
		}
		out = append(out, r)
	}
	return out, nil
}

// All reads every record (matching inc.Where), page by page (those that
// pass their check).
func (c *Collection) All(ctx context.Context, inc Include) ([]Record, error) {
	page := min(c.store.maxBatch, 1000)
	var out []Record
	for off := 0; ; off += page {
		recs, err := c.fetch(ctx, c.pageOptions(off, page, inc))
		if err != nil {
			return nil, err
		}
		out = append(out, c.store.checked(recs, inc.Documents)...)
		if len(recs) < page {
			return out, nil
		}
	}
}
