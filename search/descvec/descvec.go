// Package descvec embeds each command's one-line NAME description
// ("move (rename) files") and keeps the vectors, in memory and in a file
// beside the keyword index, for learned mode's desc features.
package descvec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/firstuse"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search/bm25"
)

// Vectors holds the embedding of each command's one-line description, a
// short, precise text that the summary chunk (NAME + SYNOPSIS + the start
// of DESCRIPTION) dilutes.
type Vectors struct {
	commands []string
	vecs     [][]float32

	rowsOnce sync.Once
	rows     map[string]int // command -> its index in commands
}

// descCache holds the Vectors of the keyword index last asked about, one
// per model (the embedder's and, with learned mode's reranker, its own),
// since a search.Searcher is a value, copied freely, that cannot hold
// them.
var descCache struct {
	sync.Mutex
	kw *bm25.Index
	d  map[string]*Vectors // by model sha256
}

// Of returns the description vectors of keyword index kw by embedder e:
// from memory, else from the file in dir written by an earlier process
// (named by a hash of the model and every description, so a new index or
// model never reads stale vectors), else embedded now (about a second
// for 900 commands on 2 cores) and saved there. An empty dir keeps them
// in memory only.
func Of(ctx context.Context, kw *bm25.Index, e embed.Embedder, dir string) (*Vectors, error) {
	model := e.Info().SHA256
	descCache.Lock()
	defer descCache.Unlock()
	if descCache.kw != kw || descCache.d == nil {
		descCache.kw, descCache.d = kw, map[string]*Vectors{}
	}
	if d := descCache.d[model]; d != nil {
		return d, nil
	}
	commands, texts := descriptionTexts(kw)
	path := ""
	if dir != "" {
		h := sha256.New()
		fmt.Fprintf(h, "cmdai-desc-v1\x00%s\x00", model)
		for i := range commands {
			fmt.Fprintf(h, "%s\x00%s\x00", commands[i], texts[i])
		}
		path = filepath.Join(dir, "descriptions-"+hex.EncodeToString(h.Sum(nil)[:8])+".vec")
	}
	d, err := readVectors(path, commands)
	if err != nil {
		done := firstuse.Begin(ctx, "embedding command descriptions")
		vecs, err := e.Embed(ctx, texts)
		done()
		if err != nil {
			return nil, fmt.Errorf("embedding the commands' descriptions: %w", err)
		}
		d = &Vectors{commands: commands, vecs: vecs}
		if path != "" {
			// a cache: a failed write costs the next process its embedding
			_ = writeVectors(path, d)
		}
	}
	descCache.d[model] = d
	return d, nil
}

// descriptionTexts lists every command of kw with its description (its
// name when it has none), sorted by command.
func descriptionTexts(kw *bm25.Index) (commands, texts []string) {
	desc := map[string]string{}
	for i := range kw.Len() {
		_, md := kw.Chunk(i)
		if _, ok := desc[md.Command]; !ok || desc[md.Command] == "" {
			desc[md.Command] = md.Description
		}
	}
	for c := range desc {
		commands = append(commands, c)
	}
	sort.Strings(commands)
	texts = make([]string, len(commands))
	for i, c := range commands {
		texts[i] = desc[c]
		if texts[i] == "" {
			texts[i] = c
		}
	}
	return commands, texts
}

// Similarities returns each command's cosine with vec (unit vectors).
func (d *Vectors) Similarities(vec []float32) map[string]float64 {
	out := make(map[string]float64, len(d.commands))
	for i, c := range d.commands {
		var dot float64
		for j, x := range d.vecs[i] {
			dot += float64(x) * float64(vec[j])
		}
		out[c] = dot
	}
	return out
}

// SimilaritiesOf returns the cosine with vec of each of commands (unit
// vectors), 0 for a command without a description vector: a few hundred
// candidates cost a third of every command's Similarities.
func (d *Vectors) SimilaritiesOf(vec []float32, commands []string) []float64 {
	d.rowsOnce.Do(func() {
		d.rows = make(map[string]int, len(d.commands))
		for i, c := range d.commands {
			d.rows[c] = i
		}
	})
	out := make([]float64, len(commands))
	for k, c := range commands {
		i, ok := d.rows[c]
		if !ok {
			continue
		}
		var dot float64
		for j, x := range d.vecs[i] {
			dot += float64(x) * float64(vec[j])
		}
		out[k] = dot
	}
	return out
}

// The file: magic, count, dims, then per command its vector (float32,
// little-endian), in the order of commands (which the file name's hash
// covers, so it is not stored).
const descMagic = "cmdai-desc1\n"

func writeVectors(path string, d *Vectors) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		dims := 0
		if len(d.vecs) > 0 {
			dims = len(d.vecs[0])
		}
		if _, err := io.WriteString(w, descMagic); err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, [2]uint32{uint32(len(d.vecs)), uint32(dims)}); err != nil {
			return err
		}
		for _, v := range d.vecs {
			if err := binary.Write(w, binary.LittleEndian, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// readVectors reads what writeVectors wrote for these commands;
// any mismatch (another count, a cut file) is an error: embed again.
func readVectors(path string, commands []string) (*Vectors, error) {
	if path == "" {
		return nil, fmt.Errorf("no keyword directory")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(b)
	magic := make([]byte, len(descMagic))
	var head [2]uint32
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != descMagic {
		return nil, fmt.Errorf("%s: not a description vector file", path)
	}
	if err := binary.Read(r, binary.LittleEndian, &head); err != nil || int(head[0]) != len(commands) || head[1] == 0 || head[1] > 4096 {
		return nil, fmt.Errorf("%s: header does not match the index", path)
	}
	if r.Len() != int(head[0])*int(head[1])*4 {
		return nil, fmt.Errorf("%s: cut short", path)
	}
	d := &Vectors{commands: commands, vecs: make([][]float32, head[0])}
	for i := range d.vecs {
		d.vecs[i] = make([]float32, head[1])
		if err := binary.Read(r, binary.LittleEndian, d.vecs[i]); err != nil {
			return nil, err
		}
		for _, x := range d.vecs[i] {
			if math.IsNaN(float64(x)) {
				return nil, fmt.Errorf("%s: holds NaN", path)
			}
		}
	}
	return d, nil
}
