package scanner

// Command is one executable found on $PATH: the first occurrence of its
// name, as which(1) would report it.
type Command struct {
	Name string `json:"name"`
	// Path is the executable's path in the $PATH directory where it was
	// found (not symlink-resolved), e.g. /usr/bin/grep.
	Path string `json:"path"`
	// Man is the man page that documents the command, or nil when none was
	// found.
	Man *ManPage `json:"man_page,omitempty"`
	// Parent is set on a subcommand page's entry (Subcommands): the
	// command on $PATH whose subcommand the page may document ("git" for
	// git-commit(1)). Path is then the parent's executable.
	Parent string `json:"parent,omitempty"`
}

// ManPage locates one man page source file.
type ManPage struct {
	// Path is the file as found in the man hierarchy, e.g.
	// /usr/share/man/man1/grep.1.gz. It may be a symlink.
	Path string `json:"path"`
	// Section is the page's section with its suffix, e.g. "1", "8", "1ssl".
	Section string `json:"section"`
	// Compression is "", "gz", "bz2", "xz", "zst" or "Z".
	Compression string `json:"compression,omitempty"`
	// Lang is the locale directory the page came from ("de",
	// "de_DE.UTF-8"), or "" for the untranslated (English) page.
	Lang string `json:"lang,omitempty"`
}

// Problem is a non-fatal difficulty met while scanning: an unreadable
// directory, a dangling or looping symlink. Scans report problems and go on.
type Problem struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}
