package distro

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Info describes the operating system and distribution an index is built
// for.
type Info struct {
	// OS is "linux", "macos" or "windows"; other systems keep their
	// runtime.GOOS name (e.g. "freebsd").
	OS string `json:"os"`
	// ID identifies the distribution and its release: "debian-12",
	// "ubuntu-22.04", "fedora-38", "arch" (rolling, no version),
	// "macos-14", "windows-11".
	ID string `json:"id"`
	// Name is for humans, e.g. "Debian GNU/Linux 12 (bookworm)".
	Name string `json:"name"`
	// Version is the release as the system reports it ("12", "14.2.1",
	// "10.0.22631.2428"); empty for rolling releases.
	Version string `json:"version"`
}

// CollectionPrefix starts every collection name, so listing the server's
// collections by it finds cmdai's own; it also guarantees the name starts
// with an alphanumeric character, as Chroma requires.
const CollectionPrefix = "cmdai_"

// CollectionName returns the Chroma collection an index for i is stored
// under: "cmdai_linux_debian-12", "cmdai_macos_14", "cmdai_windows_11".
// The OS is already part of the name, so the redundant "macos-"/"windows-"
// prefix of the ID is dropped there. Infos returned without error by Parse,
// FromOSRelease, FromMacOSVersion, FromWindowsVersion and Detect always
// yield a name that passes ValidCollectionName.
func (i Info) CollectionName() string {
	part := i.ID
	switch i.OS {
	case "macos", "windows":
		part = strings.TrimPrefix(part, i.OS+"-")
	}
	return CollectionPrefix + i.OS + "_" + part
}

// ValidCollectionName reports why name is not acceptable to Chroma as a
// collection name, or nil if it is: 3–63 characters from [a-zA-Z0-9._-],
// starting and ending with an alphanumeric character, no "..", and not an
// IPv4 address.
func ValidCollectionName(name string) error {
	if n := len(name); n < 3 || n > 63 {
		return fmt.Errorf("invalid collection name %q: must be 3-63 characters long, got %d", name, n)
	}
	for _, c := range []byte(name) {
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("invalid collection name %q: character %q not allowed, use only letters, digits, '.', '_' and '-'", name, c)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return fmt.Errorf("invalid collection name %q: must start and end with a letter or digit", name)
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("invalid collection name %q: must not contain two consecutive dots", name)
	}
	if addr, err := netip.ParseAddr(name); err == nil && addr.Is4() {
		return fmt.Errorf("invalid collection name %q: must not be an IPv4 address", name)
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// idHint is appended to every rejected id so the user knows what to type.
const idHint = "use lowercase like debian-12, ubuntu-24.04, arch, macos-14 or windows-11"

// Parse validates a distribution id given by the user (the --distro
// override) and returns the Info it stands for. The id is lowercased;
// "macos-*" and "windows-*" select those systems, anything else is taken to
// be a Linux distribution.
func Parse(id string) (Info, error) {
	orig := id
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Info{}, fmt.Errorf("empty distribution id: %s", idHint)
	}
	if err := checkID(id); err != nil {
		return Info{}, fmt.Errorf("invalid distribution id %q: %v: %s", orig, err, idHint)
	}

	info := Info{OS: "linux", ID: id, Name: id}
	for _, sys := range []string{"macos", "windows"} {
		v, ok := strings.CutPrefix(id, sys+"-")
		if id == sys || ok && strings.Trim(v, "0123456789.") != "" {
			// Detect only ever produces numeric releases here, so anything
			// else ("macos-sonoma") would name a collection nobody builds.
			return Info{}, fmt.Errorf("invalid distribution id %q: %s needs a numeric version: %s", orig, sys, idHint)
		}
		if ok {
			info.OS, info.Version = sys, v
		}
	}
	if info.OS == "linux" {
		// "ubuntu-22.04" → "22.04", "opensuse-leap-15.5" → "15.5"; ids
		// without a numeric suffix ("arch", "debian-sid") have no version.
		if i := strings.LastIndexByte(id, '-'); i >= 0 && id[i+1] >= '0' && id[i+1] <= '9' {
			info.Version = id[i+1:]
		}
	}
	if err := ValidCollectionName(info.CollectionName()); err != nil {
		return Info{}, fmt.Errorf("invalid distribution id %q: %v: %s", orig, err, idHint)
	}
	return info, nil
}

// checkID checks the shape of a lowercased id: [a-z0-9._-], starting and
// ending with a letter or digit, no "..". Together with the fixed prefix of
// CollectionName this keeps collection names valid (length is checked on
// the full name).
func checkID(id string) error {
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("character %q not allowed", c)
		}
	}
	if !isAlnum(id[0]) || !isAlnum(id[len(id)-1]) {
		return errors.New("must start and end with a letter or digit")
	}
	if strings.Contains(id, "..") {
		return errors.New("must not contain two consecutive dots")
	}
	return nil
}

// ParseOSRelease parses the os-release(5) format: KEY=value lines whose
// value may be wrapped in double quotes (with \" \\ \$ \` escapes) or single
// quotes (literal). Blank lines and # comments are skipped; lines that are
// not valid assignments are ignored rather than failing, because one
// vendor's odd line should not stop us from reading ID. Later assignments
// win, as they would in a shell.
func ParseOSRelease(r io.Reader) (map[string]string, error) {
	kv := make(map[string]string)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		key, raw, ok := strings.Cut(line, "=")
		if !ok || !validKey(key) {
			continue
		}
		val, ok := unquote(raw)
		if !ok {
			continue
		}
		kv[key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read os-release: %w", err)
	}
	return kv, nil
}

// validKey accepts shell variable names: [A-Za-z_][A-Za-z0-9_]*.
func validKey(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, c := range []byte(k) {
		if !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// unquote decodes a shell-style value, which may mix unquoted,
// double-quoted and single-quoted parts. It reports false for an
// unterminated quote.
func unquote(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case '"':
			i++
			for {
				if i >= len(v) {
					return "", false
				}
				c := v[i]
				if c == '"' {
					i++
					break
				}
				// Inside double quotes only these characters are escapable;
				// any other backslash is literal, as in sh.
				if c == '\\' && i+1 < len(v) && strings.IndexByte("\"\\$`", v[i+1]) >= 0 {
					b.WriteByte(v[i+1])
					i += 2
					continue
				}
				b.WriteByte(c)
				i++
			}
		case '\'':
			end := strings.IndexByte(v[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(v[i+1 : i+1+end])
			i += end + 2
		case '\\':
			if i+1 < len(v) {
				b.WriteByte(v[i+1])
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
}

// FromOSRelease builds the Info for a Linux system from parsed os-release
// fields: ID "-" VERSION_ID ("debian-12", "rhel-9.3"), or just ID when there
// is no VERSION_ID (rolling releases like arch, or debian testing/sid).
// Both are lowercased and characters outside [a-z0-9._-] become "-", so the
// collection name stays valid whatever the vendor wrote.
func FromOSRelease(kv map[string]string) (Info, error) {
	id := sanitize(kv["ID"])
	if id == "" {
		return Info{}, errors.New("os-release has no ID field, so the distribution is unknown: pass --distro, e.g. --distro debian-12")
	}
	version := strings.TrimSpace(kv["VERSION_ID"])
	if v := sanitize(version); v != "" {
		id += "-" + v
	}
	name := kv["PRETTY_NAME"]
	if name == "" {
		name = kv["NAME"]
	}
	if name == "" {
		name = id
	}
	info := Info{OS: "linux", ID: id, Name: name, Version: version}
	if err := checkID(id); err != nil {
		return Info{}, fmt.Errorf("os-release gives unusable distribution id %q: %v: pass --distro, e.g. --distro debian-12", id, err)
	}
	if err := ValidCollectionName(info.CollectionName()); err != nil {
		return Info{}, fmt.Errorf("os-release gives unusable distribution id %q: %v: pass --distro, e.g. --distro debian-12", id, err)
	}
	return info, nil
}

// sanitize lowercases s, replaces characters outside [a-z0-9._-] with "-"
// and trims separators from both ends (an id must start and end with a
// letter or digit).
func sanitize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-._")
}

// FromMacOSVersion builds the Info for a macOS product version as printed
// by `sw_vers -productVersion`. From macOS 11 on the major number alone
// names the release ("14.2.1" → macos-14); before that the release was
// 10.x and the first two components name it ("10.15.7" → macos-10.15).
func FromMacOSVersion(productVersion string) (Info, error) {
	v := strings.TrimSpace(productVersion)
	parts := strings.Split(v, ".")
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return Info{}, fmt.Errorf("unrecognised macOS version %q: want digits like 14.2.1", productVersion)
		}
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil || major < 10 {
		return Info{}, fmt.Errorf("unrecognised macOS version %q: want digits like 14.2.1", productVersion)
	}
	release := parts[0]
	if major == 10 {
		if len(parts) < 2 {
			return Info{}, fmt.Errorf("unrecognised macOS version %q: 10.x versions need a minor number like 10.15", productVersion)
		}
		release += "." + parts[1]
	}
	return Info{OS: "macos", ID: "macos-" + release, Name: "macOS " + v, Version: v}, nil
}

// windows11Build is the first Windows 11 build. Windows 11 still reports
// major version 10 ("10.0.22631"), so the build number is the only thing
// that tells it apart from Windows 10.
const windows11Build = 22000

// FromWindowsVersion builds the Info for a Windows build number (the third
// component of "10.0.22631.2428"). Builds from 22000 are Windows 11, lower
// ones Windows 10; older Windows is not considered because Go itself no
// longer runs there. Windows Server shares these build numbers and is
// mapped to the client release with the same base.
func FromWindowsVersion(build int) Info {
	release := "10"
	if build >= windows11Build {
		release = "11"
	}
	return Info{
		OS:      "windows",
		ID:      "windows-" + release,
		Name:    fmt.Sprintf("Windows %s (build %d)", release, build),
		Version: "10.0." + strconv.Itoa(build),
	}
}

// winVerRe finds the version in `cmd /c ver` output, e.g. "Microsoft
// Windows [Version 10.0.22631.2428]". Only the digits are matched because
// the word "Version" is localised.
var winVerRe = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)(?:\.\d+)?`)

// fromWindowsVer builds the Info from the output of `cmd /c ver`.
func fromWindowsVer(out string) (Info, error) {
	m := winVerRe.FindStringSubmatch(out)
	if m == nil {
		return Info{}, fmt.Errorf("no version number in `ver` output %q", strings.TrimSpace(out))
	}
	build, err := strconv.Atoi(m[3])
	if err != nil {
		return Info{}, fmt.Errorf("bad build number in `ver` output %q: %w", strings.TrimSpace(out), err)
	}
	info := FromWindowsVersion(build)
	info.Version = m[0]
	return info, nil
}

// DefaultOSReleasePaths are read in order, as os-release(5) prescribes:
// /etc/os-release first, /usr/lib/os-release if the former does not exist.
var DefaultOSReleasePaths = []string{"/etc/os-release", "/usr/lib/os-release"}

// commandTimeout bounds sw_vers and ver, so a hung helper cannot stall
// startup even when the caller's context has no deadline.
const commandTimeout = 5 * time.Second

// Detector finds out what this machine runs. The zero value inspects the
// real machine; tests set the fields to simulate others.
type Detector struct {
	// GOOS overrides runtime.GOOS.
	GOOS string
	// OSReleasePaths overrides DefaultOSReleasePaths.
	OSReleasePaths []string
	// RunCommand runs a program and returns its standard output; nil means
	// os/exec.
	RunCommand func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Detect identifies this machine with a default Detector.
func Detect(ctx context.Context) (Info, error) {
	return Detector{}.Detect(ctx)
}

// Detect identifies the system: os-release on Linux (and other Unix-likes
// that ship it), sw_vers on macOS, ver on Windows.
func (d Detector) Detect(ctx context.Context) (Info, error) {
	goos := d.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	switch goos {
	case "darwin":
		out, err := d.run(ctx, "sw_vers", "-productVersion")
		if err != nil {
			return Info{}, fmt.Errorf("detect macOS version: %w", err)
		}
		info, err := FromMacOSVersion(string(out))
		if err != nil {
			return Info{}, fmt.Errorf("detect macOS version: %w", err)
		}
		return info, nil
	case "windows":
		out, err := d.run(ctx, "cmd", "/c", "ver")
		if err != nil {
			return Info{}, fmt.Errorf("detect Windows version: %w", err)
		}
		info, err := fromWindowsVer(string(out))
		if err != nil {
			return Info{}, fmt.Errorf("detect Windows version: %w", err)
		}
		return info, nil
	default:
		info, err := d.fromOSReleaseFiles()
		if err != nil {
			return Info{}, err
		}
		if goos != "linux" {
			info.OS = goos
		}
		return info, nil
	}
}

func (d Detector) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	run := d.RunCommand
	if run == nil {
		run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, name, args...).Output()
		}
	}
	out, err := run(ctx, name, args...)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", strings.Join(append([]string{name}, args...), " "), err)
	}
	return out, nil
}

// fromOSReleaseFiles reads the first os-release file that exists. Only a
// missing file moves on to the next path; any other failure is reported,
// since silently using the fallback could misidentify the system.
func (d Detector) fromOSReleaseFiles() (Info, error) {
	paths := d.OSReleasePaths
	if paths == nil {
		paths = DefaultOSReleasePaths
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Info{}, fmt.Errorf("detect distribution: %w", err)
		}
		kv, err := ParseOSRelease(f)
		f.Close()
		if err != nil {
			return Info{}, fmt.Errorf("detect distribution: %s: %w", p, err)
		}
		info, err := FromOSRelease(kv)
		if err != nil {
			return Info{}, fmt.Errorf("detect distribution: %s: %w", p, err)
		}
		return info, nil
	}
	return Info{}, fmt.Errorf("detect distribution: none of %s exists: pass --distro, e.g. --distro debian-12", strings.Join(paths, ", "))
}
