package bm25

import (
	"reflect"

	"github.com/cmdai/cmdai/index"
)

// The chunks' ids, texts and metadata are most of a keyword index in
// memory, and `cmdai serve` holds one for its whole life. Kept as the
// file has them (a string and a full index.Metadata per chunk) they took
// 17 MiB for 15,370 chunks; most of it was per-chunk copies of what is
// the same for every chunk of a command (description, version, path,
// aliases: about 350 bytes of struct per chunk) and one allocation per
// string. In memory they are kept as below instead; the file keeps its
// format (wire), so indexes written before load unchanged.

// arena is many strings in one: string i is all[off[i]:off[i+1]].
type arena struct {
	all string
	off []uint32
}

func newArena(strs []string) arena {
	n := 0
	for _, s := range strs {
		n += len(s)
	}
	buf := make([]byte, 0, n)
	off := make([]uint32, 1, len(strs)+1)
	for _, s := range strs {
		buf = append(buf, s...)
		off = append(off, uint32(len(buf)))
	}
	return arena{all: string(buf), off: off}
}

func (a arena) at(i int) string { return a.all[a.off[i]:a.off[i+1]] }

func (a arena) len() int { return len(a.off) - 1 }

// slice returns every string (for Save).
func (a arena) slice() []string {
	out := make([]string, a.len())
	for i := range out {
		out[i] = a.at(i)
	}
	return out
}

// chunkMeta is one chunk's metadata: the fields that differ between the
// chunks of a command, as indexes into metaStore.strs, and the rest as
// an index into metaStore.bases.
type chunkMeta struct {
	base, kind, section, option int32
}

// metaStore keeps every chunk's metadata exactly (Meta returns what was
// stored, field for field): chunks whose metadata differs only in kind,
// section and option share one base.
type metaStore struct {
	bases  []index.Metadata // Kind, Section and Option left empty
	strs   []string         // the kinds, sections and options, once each
	chunks []chunkMeta
}

func newMetaStore(metas []index.Metadata) metaStore {
	st := metaStore{chunks: make([]chunkMeta, len(metas))}
	strIDs := map[string]int32{}
	intern := func(s string) int32 {
		id, ok := strIDs[s]
		if !ok {
			id = int32(len(st.strs))
			strIDs[s] = id
			st.strs = append(st.strs, s)
		}
		return id
	}
	byCommand := map[string][]int32{} // bases of each command
	for i, m := range metas {
		c := chunkMeta{kind: intern(string(m.Kind)), section: intern(m.Section), option: intern(m.Option)}
		m.Kind, m.Section, m.Option = "", "", ""
		c.base = -1
		for _, b := range byCommand[m.Command] {
			// DeepEqual, not a key of chosen fields: any field that
			// differs (even nil against empty aliases) gets its own base.
			if reflect.DeepEqual(st.bases[b], m) {
				c.base = b
				break
			}
		}
		if c.base < 0 {
			c.base = int32(len(st.bases))
			st.bases = append(st.bases, m)
			byCommand[m.Command] = append(byCommand[m.Command], c.base)
		}
		st.chunks[i] = c
	}
	return st
}

// meta returns chunk i's metadata. Its slices (Aliases, Keywords) are
// shared with the command's other chunks: read them, do not change them.
func (st metaStore) meta(i int) index.Metadata {
	c := st.chunks[i]
	m := st.bases[c.base]
	m.Kind, m.Section, m.Option = index.Kind(st.strs[c.kind]), st.strs[c.section], st.strs[c.option]
	return m
}

// slice returns every chunk's metadata (for Save).
func (st metaStore) slice() []index.Metadata {
	out := make([]index.Metadata, len(st.chunks))
	for i := range out {
		out[i] = st.meta(i)
	}
	return out
}

// internAll makes equal strings share one copy (the file has one per
// chunk: a command's name for each of its chunks).
func internAll(strs []string) []string {
	seen := map[string]string{}
	for i, s := range strs {
		if t, ok := seen[s]; ok {
			strs[i] = t
		} else {
			seen[s] = s
		}
	}
	return strs
}
