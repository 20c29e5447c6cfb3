// Package mutate makes the detection run's mutations: a real command
// line with one option changed to one its command does not have (a
// typo, an option of a similar command, an invented long option),
// deterministic under a seed, and checks that the new option is absent
// from the command's documentation (its index records and its installed
// page): a word the documentation spells, abbreviates or negates is no
// valid mutation.
package mutate

import (
	"crypto/sha256"
	"encoding/binary"
	"regexp"
	"sort"
	"strings"

	"github.com/cmdai/cmdai/search"
)

// The kinds of mutation.
const (
	Typo     = "typo"
	Similar  = "option of a similar command"
	Invented = "invented long option"
)

// Kinds are the kinds, in the order a run takes them in turn.
var Kinds = []string{Typo, Similar, Invented}

// Hash64 is the first 8 bytes of sha256(s): every seeded choice.
func Hash64(s string) uint64 {
	h := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(h[:8])
}

// Seeded orders xs by a hash of seed and each: deterministic, and
// unrelated to the input order.
func Seeded(seed string, xs []string) []string {
	out := append([]string(nil), xs...)
	sort.SliceStable(out, func(i, k int) bool { return Hash64(seed+out[i]) < Hash64(seed+out[k]) })
	return out
}

// FlagSet is what a command's documentation spells: every flag-like
// token of its texts (option headings, prose, synopsis, the page) and
// the letters of synopsis clusters ([-abc]).
type FlagSet struct {
	tokens  map[string]bool
	letters map[byte]bool
	long    []string // sorted "--" tokens, for prefixes
}

var (
	flagToken      = regexp.MustCompile(`(^|[\s\[(,'"|/=` + "`" + `])([-+]{1,2}[A-Za-z0-9?@#][A-Za-z0-9_?@#.-]*)`)
	bracketCluster = regexp.MustCompile(`\[-([A-Za-z0-9]{2,})\]`)
)

// NewFlagSet reads texts.
func NewFlagSet(texts ...string) *FlagSet {
	fs := &FlagSet{tokens: map[string]bool{}, letters: map[byte]bool{}}
	for _, t := range texts {
		for tok := range tokens(t) {
			fs.tokens[tok] = true
		}
		for _, m := range bracketCluster.FindAllStringSubmatch(t, -1) {
			for i := 0; i < len(m[1]); i++ {
				fs.letters[m[1][i]] = true
			}
		}
	}
	for tok := range fs.tokens {
		if strings.HasPrefix(tok, "--") {
			fs.long = append(fs.long, tok)
		}
		if len(tok) == 2 && tok[0] == '-' {
			fs.letters[tok[1]] = true
		}
	}
	sort.Strings(fs.long)
	return fs
}

// tokens are the flag spellings of t ("--file=ARCHIVE" and
// "-i[SUFFIX]" give "--file" and "-i").
func tokens(t string) map[string]bool {
	out := map[string]bool{}
	for _, m := range flagToken.FindAllStringSubmatch(t, -1) {
		tok := strings.TrimRight(m[2], ".-")
		if k := strings.IndexAny(tok, "=["); k > 0 {
			tok = tok[:k]
		}
		out[tok] = true
	}
	return out
}

// Absent: flag is no spelling the documentation has, nor (a long one) an
// abbreviation of one, nor a --no- form of one or one's positive: a
// valid mutation.
func (fs *FlagSet) Absent(flag string) bool {
	if len(flag) < 2 || flag[0] != '-' || fs.tokens[flag] {
		return false
	}
	if len(flag) == 2 {
		return !fs.letters[flag[1]]
	}
	if strings.HasPrefix(flag, "--") {
		k := sort.SearchStrings(fs.long, flag)
		if k < len(fs.long) && strings.HasPrefix(fs.long[k], flag) {
			return false
		}
		if strings.HasPrefix(flag, "--no-") && fs.tokens["--"+flag[5:]] {
			return false
		}
		if fs.tokens["--no-"+flag[2:]] {
			return false
		}
	}
	return true
}

// neighbours of each letter on a QWERTY keyboard, for typos.
var neighbours = map[byte]string{
	'q': "wa", 'w': "qes", 'e': "wrd", 'r': "etf", 't': "ryg", 'y': "tuh", 'u': "yij", 'i': "uok", 'o': "ipl", 'p': "ol",
	'a': "qsz", 's': "adwx", 'd': "sfec", 'f': "dgrv", 'g': "fhtb", 'h': "gjyn", 'j': "hkum", 'k': "jli", 'l': "kop",
	'z': "xa", 'x': "zcs", 'c': "xvd", 'v': "cbf", 'b': "vng", 'n': "bmh", 'm': "nj",
}

// Typos are flag's one-edit variants: a neighbouring key, two letters
// swapped, and (names of four letters or more) a letter dropped or
// doubled; a single letter also in the other case. Seeded order.
func Typos(seed, flag string) []string {
	dashes := 1
	if strings.HasPrefix(flag, "--") {
		dashes = 2
	}
	pre, name := flag[:dashes], flag[dashes:]
	var out []string
	for i := 0; i < len(name); i++ {
		c := name[i]
		for _, n := range []byte(neighbours[c|0x20]) {
			if c >= 'A' && c <= 'Z' {
				n &^= 0x20
			}
			out = append(out, pre+name[:i]+string(n)+name[i+1:])
		}
		if i+1 < len(name) && name[i] != name[i+1] {
			out = append(out, pre+name[:i]+string(name[i+1])+string(name[i])+name[i+2:])
		}
		if len(name) > 3 {
			out = append(out, pre+name[:i]+name[i+1:], pre+name[:i+1]+name[i:])
		}
	}
	if len(name) == 1 {
		switch c := name[0]; {
		case c >= 'a' && c <= 'z':
			out = append(out, pre+string(c-32))
		case c >= 'A' && c <= 'Z':
			out = append(out, pre+string(c+32))
		}
	}
	return Seeded(seed, out)
}

var inventedA = []string{"recursive", "force", "quiet", "fast", "deep", "safe", "auto", "strict", "human", "color",
	"skip", "keep", "only", "show", "ignore", "follow", "preserve", "sort", "print", "list"}
var inventedB = []string{"all", "mode", "files", "links", "hidden", "names", "output", "errors", "dirs", "lines",
	"format", "size", "time", "tree", "matches", "empty", "owner", "depth", "level", "path"}

// InventedLongs are plausible long options (--keep-links), seeded order.
func InventedLongs(seed string) []string {
	var out []string
	for _, a := range inventedA {
		for _, b := range inventedB {
			out = append(out, "--"+a+"-"+b)
		}
	}
	return Seeded(seed, out)
}

// Spellings are the option spellings a doc's option records give.
func Spellings(d search.CommandDoc) map[string]bool {
	out := map[string]bool{}
	for _, r := range d.Records {
		if r.Kind != "option" {
			continue
		}
		head, _, _ := strings.Cut(r.Text, "\n")
		if j := strings.Index(head, ") option "); j >= 0 {
			head = head[j+len(") option "):]
		} else {
			head = r.Option
		}
		for tok := range tokens(" " + head) {
			out[tok] = true
		}
		if r.Option != "" {
			out[r.Option] = true
		}
	}
	return out
}

// MostSimilar is the name among names (sorted; cmd and its own
// subcommand pages left out) whose spellings overlap cmd's most
// (Jaccard); "" when none shares any.
func MostSimilar(cmd string, names []string, spell func(string) map[string]bool) string {
	mine := spell(cmd)
	best, bestJ := "", 0.0
	for _, n := range names {
		if n == cmd || strings.HasPrefix(n, cmd+"-") || strings.HasPrefix(cmd, n+"-") {
			continue
		}
		other := spell(n)
		inter := 0
		for k := range mine {
			if other[k] {
				inter++
			}
		}
		if inter == 0 {
			continue
		}
		if j := float64(inter) / float64(len(mine)+len(other)-inter); j > bestJ {
			best, bestJ = n, j
		}
	}
	return best
}

// Unit is one matched option of a line, where a mutation goes: the byte
// range [Start, End) of Line holds Flag (a letter of a cluster: the
// letter alone).
type Unit struct {
	Flag       string
	Start, End int
	// Short: one letter; Single: a single-dash long option (-name);
	// Cluster: a letter of a cluster such as -xzvf.
	Short, Single, Cluster bool
}

// Raw: line holds u's text at its range, so it can be replaced there.
func (u Unit) Raw(line string) bool {
	if u.Start < 0 || u.End > len(line) || u.Start >= u.End {
		return false
	}
	if u.Cluster {
		return u.Short && u.End == u.Start+1 && line[u.Start] == u.Flag[1]
	}
	return strings.HasPrefix(line[u.Start:u.End], u.Flag)
}

// Candidates are the new options to try for u, by kind: donor is the
// similar command's spellings (Similar only). A letter of a cluster takes
// letters only; Invented does not apply to it.
func Candidates(kind, seed string, u Unit, donor map[string]bool) []string {
	switch kind {
	case Typo:
		return Typos(seed, u.Flag)
	case Similar:
		var same, other []string
		for sp := range donor {
			if len(sp) < 2 || sp[0] != '-' || !validFlag(sp) {
				continue
			}
			short, long := len(sp) == 2, strings.HasPrefix(sp, "--")
			if short == u.Short && long == (!u.Short && !u.Single) {
				same = append(same, sp)
			} else if !u.Cluster {
				other = append(other, sp)
			}
		}
		sort.Strings(same)
		sort.Strings(other)
		return append(Seeded(seed, same), Seeded(seed, other)...)
	case Invented:
		if u.Cluster {
			return nil
		}
		return InventedLongs(seed)
	}
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func validFlag(s string) bool {
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return !strings.HasSuffix(s, "-")
}

// Apply puts the first candidate that fs says is absent (and fits u: a
// cluster letter takes a letter) in place of u in line: the new line,
// the new option and its byte range there; ok false when none fits. A
// number (-01, -3) is never one: for many commands a -NUM word is a
// value, a negative number, a signal or the old -NUM form (tail -01,
// kill -02), not an option name that could be absent.
func Apply(line string, u Unit, fs *FlagSet, cands []string) (out, to string, start, end int, ok bool) {
	if !u.Raw(line) {
		return "", "", 0, 0, false
	}
	for _, c := range cands {
		if c == u.Flag || !fs.Absent(c) || u.Cluster && len(c) != 2 || allDigits(c[1:]) {
			continue
		}
		repl := c
		if u.Cluster {
			repl = c[1:]
		}
		end := u.Start + len(u.Flag)
		if u.Cluster {
			end = u.Start + 1
		}
		return line[:u.Start] + repl + line[end:], c, u.Start, u.Start + len(repl), true
	}
	return "", "", 0, 0, false
}

// OnPage: flag occurs in text as a word of its own (not inside a longer
// option), or, a single letter, in a synopsis cluster such as [-abc].
func OnPage(text, flag string) bool {
	if flag == "" {
		return false
	}
	isFlagByte := func(c byte) bool {
		return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		k := strings.Index(text[i:], flag)
		if k < 0 {
			break
		}
		a, e := i+k, i+k+len(flag)
		if (a == 0 || !isFlagByte(text[a-1])) && (e == len(text) || !isFlagByte(text[e])) {
			return true
		}
		i = a + 1
	}
	if len(flag) == 2 && flag[0] == '-' {
		for _, m := range bracketCluster.FindAllStringSubmatch(text, -1) {
			if strings.IndexByte(m[1], flag[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

var overstrike = regexp.MustCompile(".\b")

// PlainPage is `man -P cat` output without overstrike, its typographic
// hyphens and minus signs plain "-".
func PlainPage(s string) string {
	s = overstrike.ReplaceAllString(s, "")
	return strings.NewReplacer("\u2010", "-", "\u2011", "-", "\u2212", "-", "\u00ad", "").Replace(s)
}
