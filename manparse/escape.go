package manparse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// noSpaceMark stands for \c (continue the output line without a space)
// until the builder joins lines; it cannot appear in decoded text.
const noSpaceMark = '\x01'

// maxExpandDepth bounds nested string interpolation (\*x inside \*y), which
// a hostile or broken page could make infinite.
const maxExpandDepth = 16

// expand decodes a line of roff text: fonts and motions vanish, special
// characters become their Unicode glyphs, strings and registers are
// interpolated, and a \" comment ends the line.
func (r *roff) expand(s string) string {
	return r.expandDepth(s, 0)
}

func (r *roff) expandDepth(s string, depth int) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	if depth > maxExpandDepth {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		out, n, stop := r.escape(s, i, depth)
		if stop {
			break
		}
		b.WriteString(out)
		i += n
		if b.Len() > maxLineBytes {
			break
		}
	}
	return b.String()
}

// maxLineBytes caps one decoded line: a string that doubles itself through
// interpolation must not be able to eat the machine's memory.
const maxLineBytes = 1 << 16

// escape decodes the escape sequence starting at s[i] (a backslash) and
// reports its replacement text and length. stop is true for a comment.
func (r *roff) escape(s string, i, depth int) (out string, n int, stop bool) {
	if i+1 >= len(s) {
		return "", 1, false
	}
	c := s[i+1]
	switch c {
	case '"', '#':
		return "", 0, true
	case '\\', 'e', 'E':
		return `\`, 2, false
	case '.':
		return ".", 2, false
	case '-':
		return "-", 2, false
	case ' ', '~', '0', '_':
		if c == '_' {
			return "_", 2, false
		}
		return " ", 2, false
	case '|', '^', '&', ')', '%', ':', '/', ',', '{', '}', 'p', 'r', 'u', 'd', 'a', 'z', 'j', '\n':
		return "", 2, false
	case 't':
		return "\t", 2, false
	case '\'':
		return "'", 2, false
	case '`':
		return "`", 2, false
	case 'c':
		return string(noSpaceMark), 2, false
	case '!', '?':
		// transparent output: never shown on a terminal
		return "", len(s) - i, false
	case 'f', 'F', 'k', 'g', 'V', 'Y', 'm', 'M', 'O', 'K':
		_, l := readName(s, i+2)
		return "", 2 + l, false
	case 's':
		return "", 2 + sizeLen(s, i+2), false
	case '*':
		name, l := readName(s, i+2)
		if depth >= maxExpandDepth {
			return "", 2 + l, false
		}
		// \*[name arg...]: groff string with arguments; use the name only
		if sp := strings.IndexByte(name, ' '); sp >= 0 {
			name = name[:sp]
		}
		return r.expandDepth(r.strs[name], depth+1), 2 + l, false
	case 'n':
		j := i + 2
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		name, l := readName(s, j)
		return strconv.Itoa(r.reg(name)), j - i + l, false
	case '$':
		name, l := readName(s, i+2)
		// an argument is still roff text ("\-\-dry\-run"): decode it too
		return r.expandDepth(r.macroArg(name), depth+1), 2 + l, false
	case '(':
		if i+3 < len(s)+0 && i+4 <= len(s) {
			return glyph(s[i+2 : i+4]), 4, false
		}
		return "", len(s) - i, false
	case '[':
		name, l := readName(s, i+1)
		return glyph(name), 1 + l, false
	case 'w':
		arg, l := readDelimited(s, i+2)
		return strconv.Itoa(utf8.RuneCountInString(r.expandDepth(arg, depth+1))), 2 + l, false
	case 'Z':
		arg, l := readDelimited(s, i+2)
		return r.expandDepth(arg, depth+1), 2 + l, false
	case 'o':
		// overstrike: keep the first glyph (\o'e\'' is an accented e)
		arg, l := readDelimited(s, i+2)
		t := r.expandDepth(arg, depth+1)
		if t != "" {
			_, sz := utf8.DecodeRuneInString(t)
			t = t[:sz]
		}
		return t, 2 + l, false
	case 'N':
		arg, l := readDelimited(s, i+2)
		if v, err := strconv.Atoi(arg); err == nil && v > 0 && v < 0x110000 {
			return string(rune(v)), 2 + l, false
		}
		return "", 2 + l, false
	case 'C':
		arg, l := readDelimited(s, i+2)
		return glyph(arg), 2 + l, false
	case 'A', 'B':
		_, l := readDelimited(s, i+2)
		return "1", 2 + l, false
	case 'h', 'v', 'l', 'L', 'D', 'X', 'b', 'x', 'R', 'H', 'S', 'T', 'U', 'W':
		_, l := readDelimited(s, i+2)
		return "", 2 + l, false
	}
	// an unknown escape prints the character itself, as troff does
	_, sz := utf8.DecodeRuneInString(s[i+1:])
	return s[i+1 : i+1+sz], 1 + sz, false
}

// readName reads an escape's name argument at s[j]: one character, "(xx",
// or "[long name]".
func readName(s string, j int) (string, int) {
	if j >= len(s) {
		return "", 0
	}
	switch s[j] {
	case '(':
		if j+3 <= len(s) {
			return s[j+1 : j+3], 3
		}
		return "", len(s) - j
	case '[':
		end := strings.IndexByte(s[j+1:], ']')
		if end < 0 {
			return s[j+1:], len(s) - j
		}
		return s[j+1 : j+1+end], end + 2
	}
	_, sz := utf8.DecodeRuneInString(s[j:])
	return s[j : j+sz], sz
}

// readDelimited reads 'arg' where ' is any delimiter character.
func readDelimited(s string, j int) (string, int) {
	if j >= len(s) {
		return "", 0
	}
	d := s[j]
	for k := j + 1; k < len(s); k++ {
		if s[k] == '\\' {
			k++
			continue
		}
		if s[k] == d {
			return s[j+1 : k], k - j + 1
		}
	}
	return s[j+1:], len(s) - j
}

// sizeLen measures a \s argument: \s0, \s12, \s+2, \s-1, \s(12, \s+(12,
// \s[12], \s'12'.
func sizeLen(s string, j int) int {
	k := j
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if k >= len(s) {
		return k - j
	}
	switch s[k] {
	case '(':
		return min(k+3, len(s)) - j
	case '[', '\'':
		_, l := readDelimitedBracket(s, k)
		return k - j + l
	}
	// one digit, or two when the first is 1-3 (troff's rule)
	if s[k] >= '0' && s[k] <= '9' {
		if s[k] >= '1' && s[k] <= '3' && k+1 < len(s) && s[k+1] >= '0' && s[k+1] <= '9' {
			return k + 2 - j
		}
		return k + 1 - j
	}
	return k - j
}

func readDelimitedBracket(s string, k int) (string, int) {
	if s[k] == '[' {
		end := strings.IndexByte(s[k+1:], ']')
		if end < 0 {
			return s[k+1:], len(s) - k
		}
		return s[k+1 : k+1+end], end + 2
	}
	return readDelimited(s, k)
}

// glyph maps a groff special character name to text.
func glyph(name string) string {
	if g, ok := glyphs[name]; ok {
		return g
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 {
		// \[u00E9] and composites like \[u0065_0301]
		var b strings.Builder
		for _, part := range strings.Split(name[1:], "_") {
			v, err := strconv.ParseUint(part, 16, 32)
			if err != nil || v >= 0x110000 {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if strings.HasPrefix(name, "char") {
		if v, err := strconv.Atoi(name[4:]); err == nil && v > 0 && v < 256 {
			return string(rune(v))
		}
	}
	if len(name) == 2 {
		if g, ok := accent(name); ok {
			return g
		}
	}
	return ""
}

// accent builds the accented letters groff names by an accent mark and a
// letter: \('e, \(:u, \(`a, \(^o, \(~n, \(,c.
func accent(name string) (string, bool) {
	marks := map[byte]rune{'\'': 0x301, '`': 0x300, '^': 0x302, ':': 0x308, '~': 0x303, ',': 0x327, 'o': 0x30A}
	m, ok := marks[name[0]]
	l := rune(name[1])
	if !ok || !(l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z') {
		return "", false
	}
	if c, ok := composed[string([]rune{l, m})]; ok {
		return c, true
	}
	return string(l), true
}

var composed = map[string]string{
	"e\u0301": "é", "E\u0301": "É", "a\u0301": "á", "i\u0301": "í", "o\u0301": "ó", "u\u0301": "ú",
	"e\u0300": "è", "a\u0300": "à", "u\u0300": "ù", "e\u0302": "ê", "o\u0302": "ô", "a\u0302": "â",
	"u\u0308": "ü", "o\u0308": "ö", "a\u0308": "ä", "U\u0308": "Ü", "O\u0308": "Ö", "A\u0308": "Ä",
	"n\u0303": "ñ", "c\u0327": "ç", "a\u030A": "å", "A\u030A": "Å", "i\u0308": "ï", "e\u0308": "ë",
}

var glyphs = map[string]string{
	"em": "—", "en": "–", "hy": "-", "mi": "-", "pl": "+", "eq": "=", "aq": "'", "dq": "\"",
	"lq": "“", "rq": "”", "oq": "‘", "cq": "’", "Bq": "„", "bq": "‚", "Fo": "«", "Fc": "»",
	"fo": "‹", "fc": "›", "bu": "•", "co": "©", "rg": "®", "tm": "™", "de": "°", "ga": "`",
	"aa": "´", "ha": "^", "ti": "~", "a~": "~", "a^": "^", "rs": `\`, "sl": "/", "ba": "|",
	"br": "│", "bv": "|", "or": "|", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥",
	"!=": "≠", "==": "≡", "~=": "≅", "ap": "~", "->": "→", "<-": "←", "<>": "↔", "rA": "⇒",
	"lA": "⇐", "hA": "⇔", "ua": "↑", "da": "↓", "la": "⟨", "ra": "⟩", "sc": "§", "ps": "¶",
	"ct": "¢", "Po": "£", "Ye": "¥", "Eu": "€", "eu": "€", "ss": "ß", "ae": "æ", "AE": "Æ",
	"o/": "ø", "O/": "Ø", "sq": "□", "ci": "○", "**": "∗", "sh": "#", "Do": "$", "at": "@",
	"lC": "{", "rC": "}", "lB": "[", "rB": "]", "lh": "☜", "rh": "☞", "dg": "†", "dd": "‡",
	"ul": "_", "ru": "_", "rn": "‾", "bs": "\\", "es": "∅", "if": "∞", "mo": "∈", "pt": "∝",
	"sr": "√", "no": "¬", "tno": "¬", "ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl",
	"12": "½", "14": "¼", "34": "¾", "S1": "¹", "S2": "²", "S3": "³", "ct ": "¢", "OK": "✓",
	"lz": "◊", "pc": "·", "md": "⋅", "en ": "–", "oA": "Å", "oa": "å", "-D": "Ð", "Sd": "ð",
	"TP": "Þ", "Tp": "þ", "r!": "¡", "r?": "¿", "st": "∋", "nm": "∉", "sb": "⊂", "sp": "⊃",
	"ca": "∩", "cu": "∪", "gr": "∇", "pd": "∂", "is": "∫", "lc": "⌈", "rc": "⌉", "lf": "⌊", "rf": "⌋",
	"*a": "α", "*b": "β", "*g": "γ", "*d": "δ", "*e": "ε", "*l": "λ", "*m": "μ", "*p": "π", "*s": "σ",
	"ts": "ς", "Cs": "¤", "char92": `\`, "ho": "˛", "ah": "ˇ", "ab": "˘", "a-": "¯", "a.": "˙",
	"ad": "¨", "ao": "˚", "a\"": "˝",
}
