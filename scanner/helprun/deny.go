package helprun

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// ErrDenied is returned (wrapped) by Runner for commands it refuses to
// run at all, because some implementations act before parsing arguments
// or treat unknown options loosely (busybox applets, old init tools), or
// run a program of their own (shells, interpreters, local scripts).
var ErrDenied = errors.New("refusing to run --help: command is on the deny list")

// defaultDeny are base-name glob patterns (path.Match) for commands that
// power off, repartition, wipe, kill, change accounts or the network, or
// never end, and for shells and interpreters. Listing a harmless tool here
// costs one missing help text; missing a harmful one could cost a machine.
// The files these names have on this machine are denied too, whatever
// name reaches them (systemIDs).
var defaultDeny = []string{
	"reboot", "shutdown", "halt", "poweroff", "init", "telinit", "systemctl", "rtcwake",
	"*shutdown*", "*reboot*", "pm-*", "halt*", "poweroff*", "kexec", "systemd", "runlevel",
	"mkfs", "mkfs.*", "mke2fs", "mkswap", "mkdosfs", "mkntfs",
	"fdisk", "sfdisk", "cfdisk", "parted", "wipefs", "blkdiscard", "dd", "shred", "format",
	"kill", "killall", "pkill", "rm", "rmdir",
	"sudo", "su", "doas", "login", "nologin", "passwd", "chpasswd", "useradd", "userdel", "newgrp", "sg",
	"swapoff", "swapon", "umount", "mount",
	"ip", "ifdown", "ifup", "iptables", "nft", "crontab", "at", "yes",
	// shells and interpreters: what they do is a program's, not theirs
	"sh", "ash", "bash", "rbash", "dash", "zsh", "zsh5", "ksh*", "mksh*", "pdksh", "csh", "tcsh", "fish", "busybox",
	"python*", "pypy*", "perl", "perl5*", "ruby*", "irb*", "node", "nodejs", "deno", "bun", "php*", "lua*",
	"tclsh*", "wish*", "expect", "guile*", "Rscript", "julia", "awk", "gawk", "mawk", "nawk", "pwsh",
}

// systemDirs are where the files of defaultDeny's names are looked for,
// besides $PATH: the distribution's program directories.
var systemDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
	"/usr/games", "/lib/systemd", "/usr/lib/systemd"}

// IsDenied reports whether the default deny list forbids running the
// command with this name (or path; only the base name counts).
func IsDenied(name string) bool {
	return matchAny(defaultDeny, filepath.Base(name))
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// denied says why the executable at p must not run, or "" when it may.
// It judges what the file is, not what it is called: its name on PATH
// and, through symlinks, its real file's name against the patterns; the
// real file's identity (device and inode) against that of every file
// the deny list names on this machine, so a hard link or a symlink by an
// innocent name to reboot or to a shell is refused; and a script (#!)
// outside the distribution's directories, which runs an interpreter on
// a local program that may do anything with an argument it does not
// parse.
func (h Runner) denied(p string) string {
	names := []string{p}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = p
	} else if real != p {
		names = append(names, real)
	}
	for _, n := range names {
		if h.deniedName(n) {
			return "its name is on the deny list"
		}
	}
	if id, ok := fileIDOf(real); ok {
		if systemIDs()[id] {
			return "it is a file the deny list names (a shell, an interpreter, or a power, disk, kill or account tool), linked under another name"
		}
		for _, f := range h.DenyFiles {
			if fid, ok := fileIDOf(f); ok && fid == id {
				return "it is " + f
			}
		}
	}
	if isScript(real) && !distributionFile(real) {
		return "a local script: cmdai runs --help of the distribution's scripts only"
	}
	return ""
}

// deniedName matches the base name of n against the default patterns and
// Deny (a pattern with a "/" against the full path).
func (h Runner) deniedName(n string) bool {
	base := filepath.Base(n)
	if IsDenied(base) {
		return true
	}
	for _, pat := range h.Deny {
		target := base
		if strings.Contains(pat, "/") {
			target = n
		}
		if ok, _ := path.Match(pat, target); ok {
			return true
		}
	}
	return false
}

// fileID is a file's identity: the same for every name and link of it.
type fileID struct{ dev, ino uint64 }

var (
	systemOnce sync.Once
	systemSet  map[fileID]bool
)

// systemIDs are the identities of the files defaultDeny's names have in
// the system directories and $PATH, found once per process (a directory
// listing each, a stat per name that matches; nothing is run).
func systemIDs() map[fileID]bool {
	systemOnce.Do(func() {
		systemSet = map[fileID]bool{}
		dirs := append(append([]string(nil), systemDirs...), filepath.SplitList(os.Getenv("PATH"))...)
		for _, d := range dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !IsDenied(e.Name()) {
					continue
				}
				if id, ok := fileIDOf(filepath.Join(d, e.Name())); ok {
					systemSet[id] = true
				}
			}
		}
	})
	return systemSet
}

// isScript reports whether the file starts with "#!": the kernel runs
// the interpreter it names on it.
func isScript(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [2]byte
	n, _ := f.Read(head[:])
	return n == 2 && string(head[:]) == "#!"
}

// distributionFile reports whether the real path p lies where the
// distribution's packages install programs (/usr outside /usr/local,
// /bin, /sbin, /lib), not a user's or an administrator's own (~/bin,
// /usr/local, /opt, a project's directory).
func distributionFile(p string) bool {
	if strings.HasPrefix(p, "/usr/local/") {
		return false
	}
	for _, d := range []string{"/usr/", "/bin/", "/sbin/", "/lib/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}
