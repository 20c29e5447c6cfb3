package guard

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxCommandBytes bounds a command name asked for: names are short.
const MaxCommandBytes = 200

// CommandName checks a command's name as GET /v1/docs and MCP's
// command_docs take it, and returns it with its blanks made one space: a
// command ("grep"), or a subcommand as it is run ("git commit") or as its
// page is named ("git-commit"); search.Docs reads both. Refused, with
// what to send instead: an empty name, not UTF-8, over MaxCommandBytes, a
// control or invisible character (a blank aside), a slash, more than two words, or an option.
func CommandName(s string) (string, error) {
	const eg = `give the name alone, e.g. grep, or a subcommand as git commit`
	words := strings.Fields(s)
	switch {
	case len(words) == 0:
		return "", fmt.Errorf("no command named: %s", eg)
	case !utf8.ValidString(s):
		return "", fmt.Errorf("command is not valid UTF-8")
	case len(strings.TrimSpace(s)) > MaxCommandBytes:
		return "", fmt.Errorf("command name of %d bytes: at most %d", len(strings.TrimSpace(s)), MaxCommandBytes)
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' && r != '\t' }) >= 0:
		// a NUL, an escape, a tab or newline, or an invisible format
		// character (U+202E) would reach the terminal or the prompt
		return "", fmt.Errorf("command %q holds a control or invisible character: a name is printable characters and one blank, %s", s, eg)
	case len(words) > 2 || strings.Contains(s, "/"):
		return "", fmt.Errorf("command %q is not a command name: %s", s, eg)
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			return "", fmt.Errorf("command %q is not a command name: %s (an option's text is asked for apart, e.g. command_docs' option)", s, eg)
		}
	}
	return strings.Join(words, " "), nil
}
