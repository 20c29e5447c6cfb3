package scanner

import (
	"sort"
	"strings"
)

// Subcommands finds the pages that may document a subcommand of a
// command on $PATH, the way git-commit(1) documents "git commit" and
// ip-route(8) "ip route": a page named <parent>-<word> (searched by
// Lookup's rules) where <parent> is one of cmds with a page of its own
// and <parent>-<word> is not itself a command in cmds. The longest such
// parent wins (systemd-tmpfiles-clean belongs to systemd-tmpfiles).
//
// The name is only a candidate's: whether the page really documents
// "<parent> <word>" is for its SYNOPSIS to say, once it is parsed
// (manparse.Page.Invokes); gpg-wks-client(1) is a program of its own,
// not "gpg wks-client". Names with a dot or an at sign are left out:
// they are systemd units (systemd-journald.service(8)) or libraries,
// never subcommands. Each entry's Path is its parent's executable, so
// that installing or upgrading the parent marks it changed. The result
// is sorted by name.
func Subcommands(cmds []Command, ix *ManIndex) []Command {
	if ix == nil {
		return nil
	}
	byName := make(map[string]*Command, len(cmds))
	for i := range cmds {
		byName[cmds[i].Name] = &cmds[i]
	}
	var out []Command
	for name := range ix.byName {
		if _, onPath := byName[name]; onPath || strings.ContainsAny(name, ".@") {
			continue
		}
		parent := parentOf(name, byName)
		if parent == nil {
			continue
		}
		if mp := ix.Lookup(name); mp != nil && isCommandSection(mp.Section) {
			out = append(out, Command{Name: name, Path: parent.Path, Man: mp, Parent: parent.Name})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// parentOf is the longest dash-separated prefix of name that is a
// command with a page, or nil.
func parentOf(name string, byName map[string]*Command) *Command {
	for i := strings.LastIndexByte(name, '-'); i > 0; i = strings.LastIndexByte(name[:i], '-') {
		if i == len(name)-1 {
			continue // a trailing dash names no word
		}
		if c := byName[name[:i]]; c != nil && c.Man != nil {
			return c
		}
	}
	return nil
}

// isCommandSection reports the sections of commands: user commands (1,
// 1ssl, 1p) and administration (8). A git-config(5)-like file format
// page is not a subcommand.
func isCommandSection(sec string) bool {
	return strings.HasPrefix(sec, "1") || strings.HasPrefix(sec, "8")
}
