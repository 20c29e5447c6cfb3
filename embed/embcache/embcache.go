// Package embcache remembers embedding vectors on disk by model and text,
// so that a re-run or a refresh embeds only the chunks whose text changed.
package embcache

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// Cache remembers vectors by (model sha256, text sha256), so that a
// re-run or a refresh embeds only the chunks whose text changed. It is an
// append-only file per model: a record is the 32-byte key then Dims
// little-endian float32s. A record cut short by a crash is ignored.
type Cache struct {
	mu   sync.Mutex
	path string
	f    *os.File
	m    map[[32]byte][]float32
	dims int
}

const cacheMagic = "cmdai-vec1\n"

// OpenCache opens (creating if needed) the cache for the model whose
// weights hash to modelSHA.
func OpenCache(dir, modelSHA string, dims int) (*Cache, error) {
	if len(modelSHA) < 16 {
		return nil, fmt.Errorf("embedding cache: model sha256 %q too short", modelSHA)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	path := filepath.Join(dir, modelSHA[:16]+".vec")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	c := &Cache{path: path, f: f, m: map[[32]byte][]float32{}, dims: dims}
	if err := c.load(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cache) recordSize() int64 { return 32 + 4*int64(c.dims) }

func (c *Cache) load() error {
	fi, err := c.f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		_, err := c.f.Write([]byte(cacheMagic))
		return err
	}
	r := bufio.NewReaderSize(c.f, 1<<20)
	head := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != cacheMagic {
		return fmt.Errorf("embedding cache %s is not a cmdai cache: delete it and re-run", c.path)
	}
	rec := make([]byte, c.recordSize())
	good := int64(len(cacheMagic))
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
		var key [32]byte
		copy(key[:], rec[:32])
		v := make([]float32, c.dims)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec[32+4*i:]))
		}
		c.m[key] = v
		good += c.recordSize()
	}
	// drop a torn tail so the next append starts on a record boundary
	if good != fi.Size() {
		if err := c.f.Truncate(good); err != nil {
			return fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
	}
	_, err = c.f.Seek(good, io.SeekStart)
	return err
}

// Key is the cache key of a text under this cache's model.
func textKey(text string) [32]byte { return sha256.Sum256([]byte(text)) }

// Get returns the cached vector of text, if any.
func (c *Cache) Get(text string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[textKey(text)]
	return v, ok
}

// Put stores vectors for texts.
func (c *Cache) Put(texts []string, vecs [][]float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := make([]byte, 0, int64(len(texts))*c.recordSize())
	for i, t := range texts {
		if len(vecs[i]) != c.dims {
			return fmt.Errorf("embedding cache: vector of %d dims, want %d", len(vecs[i]), c.dims)
		}
		k := textKey(t)
		if _, ok := c.m[k]; ok {
			continue
		}
		c.m[k] = vecs[i]
		buf = append(buf, k[:]...)
		for _, x := range vecs[i] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	if _, err := c.f.Write(buf); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	return nil
}

// Len is the number of cached vectors.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Close flushes and closes the cache file.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.f.Sync(); err != nil {
		c.f.Close()
		return err
	}
	return c.f.Close()
}
