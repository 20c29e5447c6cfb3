package distro

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

const (
	debian12 = `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
`
	ubuntu2204 = `PRETTY_NAME="Ubuntu 22.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.3 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
UBUNTU_CODENAME=jammy
`
	fedora38 = `NAME="Fedora Linux"
VERSION="38 (Workstation Edition)"
ID=fedora
VERSION_ID=38
VERSION_CODENAME=""
PLATFORM_ID="platform:f38"
PRETTY_NAME="Fedora Linux 38 (Workstation Edition)"
ANSI_COLOR="0;38;2;60;110;180"
LOGO=fedora-logo-icon
CPE_NAME="cpe:/o:fedoraproject:fedora:38"
`
	arch = `NAME="Arch Linux"
PRETTY_NAME="Arch Linux"
ID=arch
BUILD_ID=rolling
ANSI_COLOR="38;2;23;147;209"
HOME_URL="https://archlinux.org/"
LOGO=archlinux-logo
`
	alpine = `NAME="Alpine Linux"
ID=alpine
VERSION_ID=3.19.1
PRETTY_NAME="Alpine Linux v3.19"
HOME_URL="https://alpinelinux.org/"
`
	rhel93 = `NAME="Red Hat Enterprise Linux"
VERSION="9.3 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.3"
PRETTY_NAME="Red Hat Enterprise Linux 9.3 (Plow)"
`
	debianSid = `PRETTY_NAME="Debian GNU/Linux trixie/sid"
NAME="Debian GNU/Linux"
VERSION_CODENAME=trixie
ID=debian
`
	// tricky exercises quoting, escapes, comments and lines to ignore.
	tricky = `# a comment line
   # an indented comment

ID='Weird_OS'
VERSION_ID="1.0 beta"
NAME="Say \"hi\" \\ \$HOME ` + "\\`" + ` back"
PRETTY_NAME='single \n "literal"'
EMPTY=
BARE=plain value
MIXED="a"'b'c
ESCAPED=foo\ bar
not a valid line
=novalue
1BAD=x
BAD KEY=x
UNTERMINATED="oops
OTHER_UNTERMINATED='oops
  INDENTED=yes
`
)

func TestParseOSRelease(t *testing.T) {
	got, err := ParseOSRelease(strings.NewReader(tricky))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ID":          "Weird_OS",
		"VERSION_ID":  "1.0 beta",
		"NAME":        "Say \"hi\" \\ $HOME ` back",
		"PRETTY_NAME": `single \n "literal"`,
		"EMPTY":       "",
		"BARE":        "plain value",
		"MIXED":       "abc",
		"ESCAPED":     "foo bar",
		"INDENTED":    "yes",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseOSRelease:\n got %q\nwant %q", got, want)
	}
}

func TestParseOSReleaseLastWins(t *testing.T) {
	got, err := ParseOSRelease(strings.NewReader("ID=a\nID=b\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got["ID"] != "b" {
		t.Errorf("ID = %q, want b", got["ID"])
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestParseOSReleaseReadError(t *testing.T) {
	if _, err := ParseOSRelease(errReader{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want wrapped read error", err)
	}
}

func TestFromOSRelease(t *testing.T) {
	tests := []struct {
		name, file string
		want       Info
		collection string
	}{
		{"debian 12", debian12, Info{"linux", "debian-12", "Debian GNU/Linux 12 (bookworm)", "12"}, "cmdai_linux_debian-12"},
		{"ubuntu 22.04", ubuntu2204, Info{"linux", "ubuntu-22.04", "Ubuntu 22.04.3 LTS", "22.04"}, "cmdai_linux_ubuntu-22.04"},
		{"fedora 38", fedora38, Info{"linux", "fedora-38", "Fedora Linux 38 (Workstation Edition)", "38"}, "cmdai_linux_fedora-38"},
		{"arch", arch, Info{"linux", "arch", "Arch Linux", ""}, "cmdai_linux_arch"},
		{"alpine", alpine, Info{"linux", "alpine-3.19.1", "Alpine Linux v3.19", "3.19.1"}, "cmdai_linux_alpine-3.19.1"},
		{"rhel 9.3", rhel93, Info{"linux", "rhel-9.3", "Red Hat Enterprise Linux 9.3 (Plow)", "9.3"}, "cmdai_linux_rhel-9.3"},
		{"debian sid", debianSid, Info{"linux", "debian", "Debian GNU/Linux trixie/sid", ""}, "cmdai_linux_debian"},
		{"sanitized", tricky, Info{"linux", "weird_os-1.0-beta", `single \n "literal"`, "1.0 beta"}, "cmdai_linux_weird_os-1.0-beta"},
		{"name fallback", "ID=foo\nNAME=Foo OS\n", Info{"linux", "foo", "Foo OS", ""}, "cmdai_linux_foo"},
		{"odd edges", "ID=\" My Distro! \"\nVERSION_ID=(7)\n", Info{"linux", "my-distro-7", "my-distro-7", "(7)"}, "cmdai_linux_my-distro-7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kv, err := ParseOSRelease(strings.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := FromOSRelease(kv)
			if err != nil {
				t.Fatalf("FromOSRelease: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if c := got.CollectionName(); c != tt.collection {
				t.Errorf("CollectionName = %q, want %q", c, tt.collection)
			}
			if err := ValidCollectionName(got.CollectionName()); err != nil {
				t.Errorf("collection name invalid: %v", err)
			}
		})
	}
}

func TestFromOSReleaseErrors(t *testing.T) {
	tests := []struct {
		name    string
		kv      map[string]string
		wantMsg string
	}{
		{"no ID", map[string]string{"NAME": "Foo"}, "--distro"},
		{"blank ID", map[string]string{"ID": "  "}, "no ID"},
		{"only punctuation", map[string]string{"ID": "!!!"}, "no ID"},
		{"double dot", map[string]string{"ID": "foo", "VERSION_ID": "1..2"}, "consecutive"},
		{"too long", map[string]string{"ID": strings.Repeat("x", 60)}, "3-63"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := FromOSRelease(tt.kv)
			if err == nil {
				t.Fatalf("got %+v, want error", info)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestFromMacOSVersion(t *testing.T) {
	tests := []struct {
		in, id, version string
	}{
		{"14.2.1", "macos-14", "14.2.1"},
		{"14.0\n", "macos-14", "14.0"},
		{"15", "macos-15", "15"},
		{"11.7.10", "macos-11", "11.7.10"},
		{"10.15.7", "macos-10.15", "10.15.7"},
		{"10.9", "macos-10.9", "10.9"},
	}
	for _, tt := range tests {
		got, err := FromMacOSVersion(tt.in)
		if err != nil {
			t.Errorf("FromMacOSVersion(%q): %v", tt.in, err)
			continue
		}
		if got.OS != "macos" || got.ID != tt.id || got.Version != tt.version || got.Name != "macOS "+tt.version {
			t.Errorf("FromMacOSVersion(%q) = %+v, want id %s version %s", tt.in, got, tt.id, tt.version)
		}
		if err := ValidCollectionName(got.CollectionName()); err != nil {
			t.Errorf("FromMacOSVersion(%q): %v", tt.in, err)
		}
	}
	if got, _ := FromMacOSVersion("14.2.1"); got.CollectionName() != "cmdai_macos_14" {
		t.Errorf("CollectionName = %q, want cmdai_macos_14", got.CollectionName())
	}

	for _, bad := range []string{"", "  ", "abc", "14.x", "14..1", ".14", "10", "9.2", "-14", "14 beta"} {
		if got, err := FromMacOSVersion(bad); err == nil {
			t.Errorf("FromMacOSVersion(%q) = %+v, want error", bad, got)
		}
	}
}

func TestFromWindowsVersion(t *testing.T) {
	tests := []struct {
		build int
		id    string
	}{
		{10240, "windows-10"},
		{19045, "windows-10"},
		{21999, "windows-10"},
		{22000, "windows-11"},
		{22631, "windows-11"},
		{26100, "windows-11"},
	}
	for _, tt := range tests {
		got := FromWindowsVersion(tt.build)
		if got.OS != "windows" || got.ID != tt.id {
			t.Errorf("FromWindowsVersion(%d) = %+v, want id %s", tt.build, got, tt.id)
		}
		if err := ValidCollectionName(got.CollectionName()); err != nil {
			t.Errorf("FromWindowsVersion(%d): %v", tt.build, err)
		}
	}
	if got := FromWindowsVersion(22631).CollectionName(); got != "cmdai_windows_11" {
		t.Errorf("CollectionName = %q, want cmdai_windows_11", got)
	}
}

func TestParse(t *testing.T) {
	good := []struct {
		in         string
		want       Info
		collection string
	}{
		{"debian-12", Info{"linux", "debian-12", "debian-12", "12"}, "cmdai_linux_debian-12"},
		{"Ubuntu-24.04", Info{"linux", "ubuntu-24.04", "ubuntu-24.04", "24.04"}, "cmdai_linux_ubuntu-24.04"},
		{" arch\n", Info{"linux", "arch", "arch", ""}, "cmdai_linux_arch"},
		{"debian-sid", Info{"linux", "debian-sid", "debian-sid", ""}, "cmdai_linux_debian-sid"},
		{"opensuse-leap-15.5", Info{"linux", "opensuse-leap-15.5", "opensuse-leap-15.5", "15.5"}, "cmdai_linux_opensuse-leap-15.5"},
		{"macos-14", Info{"macos", "macos-14", "macos-14", "14"}, "cmdai_macos_14"},
		{"macos-10.15", Info{"macos", "macos-10.15", "macos-10.15", "10.15"}, "cmdai_macos_10.15"},
		{"WINDOWS-11", Info{"windows", "windows-11", "windows-11", "11"}, "cmdai_windows_11"},
	}
	for _, tt := range good {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if c := got.CollectionName(); c != tt.collection {
			t.Errorf("Parse(%q).CollectionName() = %q, want %q", tt.in, c, tt.collection)
		}
		if err := ValidCollectionName(got.CollectionName()); err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
		}
	}

	bad := []string{
		"", "   ", "Debian 12", "debian/12", "debian_12!",
		"-debian", "debian-", ".arch", "debian..12", "macos", "windows",
		"macos-sonoma", "windows-", "debian\t12", "débian-12",
		strings.Repeat("a", 52),
	}
	for _, in := range bad {
		got, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %+v, want error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "debian-12") {
			t.Errorf("Parse(%q) error %q does not show a valid example", in, err)
		}
	}
	if _, err := Parse(strings.Repeat("a", 51)); err != nil {
		t.Errorf("51-character id should fit a 63-character collection name: %v", err)
	}
	_, err := Parse("Debian 12")
	if want := `invalid distribution id "Debian 12"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Parse(\"Debian 12\") error = %v, want it to contain %s", err, want)
	}
}

func TestValidCollectionName(t *testing.T) {
	tests := []struct {
		name    string
		wantMsg string // empty: valid
	}{
		{"cmdai_linux_debian-12", ""},
		{"cmdai_macos_10.15", ""},
		{"abc", ""},
		{"A1b", ""},
		{strings.Repeat("a", 63), ""},
		{"1.2.3", ""}, // not four octets, so not an IPv4 address
		{"ab", "3-63"},
		{"", "3-63"},
		{strings.Repeat("a", 64), "3-63"},
		{"abc def", "not allowed"},
		{"abc/def", "not allowed"},
		{"abc:def", "not allowed"},
		{"_abc", "start and end"},
		{"abc-", "start and end"},
		{".abc", "start and end"},
		{"a..b", "consecutive dots"},
		{"192.168.1.1", "IPv4"},
		{"10.0.0.255", "IPv4"},
	}
	for _, tt := range tests {
		err := ValidCollectionName(tt.name)
		switch {
		case tt.wantMsg == "" && err != nil:
			t.Errorf("ValidCollectionName(%q) = %v, want nil", tt.name, err)
		case tt.wantMsg != "" && err == nil:
			t.Errorf("ValidCollectionName(%q) = nil, want error about %q", tt.name, tt.wantMsg)
		case tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg):
			t.Errorf("ValidCollectionName(%q) = %v, want error about %q", tt.name, err, tt.wantMsg)
		}
	}
}

func TestInfoJSON(t *testing.T) {
	b, err := json.Marshal(Info{OS: "linux", ID: "debian-12", Name: "Debian", Version: "12"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"os":"linux","id":"debian-12","name":"Debian","version":"12"}`; string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
}

// noCommand fails the test if a command is run where none is expected.
func noCommand(t *testing.T) func(context.Context, string, ...string) ([]byte, error) {
	return func(_ context.Context, name string, args ...string) ([]byte, error) {
		t.Errorf("unexpected command %s %v", name, args)
		return nil, errors.New("unexpected")
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDetectOSRelease(t *testing.T) {
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc-os-release")
	lib := writeFile(t, dir, "lib-os-release", ubuntu2204)

	// /etc/os-release missing: fall back to /usr/lib/os-release.
	d := Detector{GOOS: "linux", OSReleasePaths: []string{etc, lib}, RunCommand: noCommand(t)}
	got, err := d.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "ubuntu-22.04" || got.OS != "linux" {
		t.Errorf("fallback: got %+v, want ubuntu-22.04", got)
	}

	// /etc/os-release present: it wins.
	writeFile(t, dir, "etc-os-release", debian12)
	got, err = d.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "debian-12" {
		t.Errorf("preferred: got %+v, want debian-12", got)
	}

	// Other Unix-likes with os-release keep their GOOS name.
	d.GOOS = "freebsd"
	writeFile(t, dir, "etc-os-release", "NAME=FreeBSD\nVERSION_ID=14.0\nID=freebsd\n")
	got, err = d.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.OS != "freebsd" || got.ID != "freebsd-14.0" || got.CollectionName() != "cmdai_freebsd_freebsd-14.0" {
		t.Errorf("freebsd: got %+v (%s)", got, got.CollectionName())
	}
}

func TestDetectOSReleaseErrors(t *testing.T) {
	dir := t.TempDir()
	missing := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	_, err := Detector{GOOS: "linux", OSReleasePaths: missing}.Detect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--distro") || !strings.Contains(err.Error(), missing[1]) {
		t.Errorf("no files: err = %v, want hint naming the paths and --distro", err)
	}

	noID := writeFile(t, dir, "noid", "NAME=Mystery\n")
	_, err = Detector{GOOS: "linux", OSReleasePaths: []string{noID}}.Detect(context.Background())
	if err == nil || !strings.Contains(err.Error(), noID) || !strings.Contains(err.Error(), "--distro") {
		t.Errorf("no ID: err = %v, want path and --distro hint", err)
	}

	// A path that exists but cannot be read as a file is an error, not a
	// reason to fall back.
	lib := writeFile(t, dir, "lib", debian12)
	_, err = Detector{GOOS: "linux", OSReleasePaths: []string{dir, lib}}.Detect(context.Background())
	if err == nil {
		t.Errorf("directory as os-release: want error")
	}
}

func TestDetectDarwin(t *testing.T) {
	var gotCmd []string
	d := Detector{GOOS: "darwin", RunCommand: func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("command run without a deadline")
		}
		gotCmd = append([]string{name}, args...)
		return []byte("14.2.1\n"), nil
	}}
	got, err := d.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sw_vers", "-productVersion"}; !reflect.DeepEqual(gotCmd, want) {
		t.Errorf("ran %q, want %q", gotCmd, want)
	}
	if want := (Info{"macos", "macos-14", "macOS 14.2.1", "14.2.1"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}

	d.RunCommand = func(context.Context, string, ...string) ([]byte, error) {
		return nil, errors.New("sw_vers: not found")
	}
	if _, err := d.Detect(context.Background()); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("err = %v, want wrapped command error", err)
	}
	d.RunCommand = func(context.Context, string, ...string) ([]byte, error) { return []byte("garbage"), nil }
	if _, err := d.Detect(context.Background()); err == nil {
		t.Error("garbage output: want error")
	}
}

func TestDetectWindows(t *testing.T) {
	tests := []struct {
		out  string
		want Info
	}{
		{"\r\nMicrosoft Windows [Version 10.0.22631.2428]\r\n", Info{"windows", "windows-11", "Windows 11 (build 22631)", "10.0.22631.2428"}},
		{"\r\nMicrosoft Windows [Version 10.0.19045.3570]\r\n", Info{"windows", "windows-10", "Windows 10 (build 19045)", "10.0.19045.3570"}},
		{"Microsoft Windows [Versión 10.0.22000]", Info{"windows", "windows-11", "Windows 11 (build 22000)", "10.0.22000"}},
	}
	for _, tt := range tests {
		var gotCmd []string
		d := Detector{GOOS: "windows", RunCommand: func(_ context.Context, name string, args ...string) ([]byte, error) {
			gotCmd = append([]string{name}, args...)
			return []byte(tt.out), nil
		}}
		got, err := d.Detect(context.Background())
		if err != nil {
			t.Errorf("%q: %v", tt.out, err)
			continue
		}
		if want := []string{"cmd", "/c", "ver"}; !reflect.DeepEqual(gotCmd, want) {
			t.Errorf("ran %q, want %q", gotCmd, want)
		}
		if got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.out, got, tt.want)
		}
	}

	d := Detector{GOOS: "windows", RunCommand: func(context.Context, string, ...string) ([]byte, error) {
		return []byte("Microsoft Windows"), nil
	}}
	if _, err := d.Detect(context.Background()); err == nil {
		t.Error("output without version: want error")
	}
}

// TestDetectThisMachine runs the real detection and checks it against the
// os-release file it should have read.
func TestDetectThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks os-release, Linux only")
	}
	info, err := Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.ID == "" || info.OS != "linux" {
		t.Fatalf("Detect = %+v, want linux with an ID", info)
	}
	if err := ValidCollectionName(info.CollectionName()); err != nil {
		t.Errorf("collection name: %v", err)
	}

	var kv map[string]string
	for _, p := range DefaultOSReleasePaths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		kv, err = ParseOSRelease(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if kv == nil {
		t.Fatal("Detect succeeded but no os-release file is readable")
	}
	want := strings.ToLower(kv["ID"])
	if v := kv["VERSION_ID"]; v != "" {
		want += "-" + v
	}
	if info.ID != want {
		t.Errorf("Detect ID = %q, want %q from os-release", info.ID, want)
	}
	t.Logf("detected %+v, collection %s", info, info.CollectionName())
}
