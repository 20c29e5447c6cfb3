package chroma

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reachAs is what a local user (another, or the owner) tries against a
// private server, with nothing but the machine: the socket in its data directory, the
// directory itself, the server's network namespace, and every loopback
// TCP port that listens (where a server without the jail is found), each
// asked for the collection by name.
func reachAs(sockPath, dataDir string, pid int, coll string) probeResult {
	var out probeResult
	path := "/api/v2/tenants/default_tenant/databases/default_database/collections/" + coll
	ask := func(c net.Conn) string {
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path)
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "error: " + err.Error()
		}
		return strings.TrimSpace(line)
	}
	// the socket as cmdai uses it: the relay hands over a connection
	if c, err := dialSocket(context.Background(), sockPath); err != nil {
		out.Socket = "error: " + err.Error()
	} else {
		out.Socket = ask(c)
	}
	if names, err := os.ReadDir(dataDir); err != nil {
		out.DataDir = "error: " + err.Error()
	} else {
		out.DataDir = fmt.Sprintf("listed %d files", len(names))
	}
	runtime.LockOSThread() // entering a namespace is the thread's (never unlocked: the thread dies with it)
	if fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/net", pid), unix.O_RDONLY, 0); err != nil {
		out.Setns = "error: " + err.Error()
	} else if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		out.Setns = "error: " + err.Error()
	} else {
		out.Setns = "entered"
	}
	out.Ports = []int{}
	raw, _ := os.ReadFile("/proc/net/tcp")
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "0A" { // LISTEN
			continue
		}
		host, port, _ := strings.Cut(f[1], ":")
		if host != "0100007F" && host != "00000000" {
			continue
		}
		n, _ := strconv.ParseInt(port, 16, 32)
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(n)), 2*time.Second); err == nil {
			if strings.Contains(ask(c)+" ", " 200 ") {
				out.Ports = append(out.Ports, int(n))
			}
		}
	}
	return out
}

type probeResult struct { // what probe found
	Socket  string `json:"socket"`
	DataDir string `json:"data_dir"`
	Setns   string `json:"setns"`
	Ports   []int  `json:"ports_with_collection"`
}

// otherUser returns a second local user, created when missing: the
// tests that prove what another user cannot reach act as a real one.
// Creating a user needs root, which `make test` runs as.
func otherUser(t *testing.T) *syscall.Credential {
	t.Helper()
	const name = "cmdai-test-other"
	u, err := user.Lookup(name)
	if err != nil {
		if os.Geteuid() != 0 {
			t.Fatalf("this test acts as a second local user (%s), which only root can create: run it as root, as `make test` does", name)
		}
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v\n%s", name, err, out)
		}
		if u, err = user.Lookup(name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == os.Geteuid() {
		t.Fatalf("%s has this process's uid %d", name, uid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// probeAs runs reachAs as cred (nil: this user) against srv, in a
// process of its own (entering a namespace is for good): this test binary, copied where
// that user can run it, re-executed (TestMain runs reachAs when
// CMDAI_TEST_PROBE is set).
func probeAs(t *testing.T, cred *syscall.Credential, srv *Server, coll string) probeResult {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cmdai-probe-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "probe")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{SocketPathOf(srv.DataDir), srv.DataDir, strconv.Itoa(srv.PID()), coll})
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "CMDAI_TEST_PROBE="+string(args))
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe: %v\n%s%s", err, out, stderr.String())
	}
	var r probeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("probe printed %q: %v", out, err)
	}
	return r
}

// runProbe is the probe process (TestMain): CMDAI_TEST_PROBE holds
// probe's arguments as a JSON list; it prints the result.
func runProbe(spec string) {
	var a []string
	if err := json.Unmarshal([]byte(spec), &a); err != nil || len(a) != 4 {
		fmt.Fprintln(os.Stderr, "CMDAI_TEST_PROBE:", spec, err)
		os.Exit(2)
	}
	pid, _ := strconv.Atoi(a[2])
	_ = json.NewEncoder(os.Stdout).Encode(reachAs(a[0], a[1], pid, a[3]))
	os.Exit(0)
}

// TestPrivateServerOnlyItsOwnerReaches (issue 45, finding 3): the
// private server runs in a network namespace of its own, reached through
// a socket in its 0700 data directory, so another local user can neither
// open the socket, nor list the directory, nor enter the namespace, nor
// find the collection on any loopback port, while its owner reaches it.
// With the jail off (CMDAI_CHROMA_NO_JAIL=1, the server as every build
// before ran it) the same other user finds the collection on a loopback
// port: the probe is one that would succeed.
func TestPrivateServerOnlyItsOwnerReaches(t *testing.T) {
	other := otherUser(t)
	// Directories the other user may pass through to reach the data
	// directory, which alone is closed (0700, as PrivateDir makes it).
	open := t.TempDir()
	for _, d := range []string{filepath.Dir(open), open} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := func(dir, coll string) *Server {
		t.Helper()
		srv, err := StartServer(context.Background(), ServerOptions{Bin: chromaBin(t), DataDir: filepath.Join(open, dir)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Stop() })
		st, err := Connect(context.Background(), Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.CreateCollection(context.Background(), coll, map[string]any{"probe": "yes"}); err != nil {
			t.Fatal(err)
		}
		return srv
	}

	t.Setenv(NoJailEnv, "")
	jailed := start("jailed", "cmdai_probe_jailed")
	if !jailed.Isolation.Isolated() || !strings.HasPrefix(jailed.URL, "unix://") {
		t.Fatalf("the private server is not jailed: %s (%s)", jailed.URL, jailed.Isolation)
	}
	self, _ := os.Readlink("/proc/self/ns/net")
	srvNet, err := os.Readlink("/proc/" + strconv.Itoa(jailed.PID()) + "/ns/net")
	if err != nil || srvNet == self {
		t.Fatalf("the server's network namespace %q (%v) is this process's %q", srvNet, err, self)
	}
	owner := probeAs(t, nil, jailed, "cmdai_probe_jailed")
	if !strings.Contains(owner.Socket, " 200 ") {
		t.Fatalf("the owner does not reach its server through the socket: %+v", owner)
	}
	got := probeAs(t, other, jailed, "cmdai_probe_jailed")
	if !strings.Contains(got.Socket, "permission denied") || !strings.Contains(got.DataDir, "permission denied") ||
		!strings.HasPrefix(got.Setns, "error:") || len(got.Ports) != 0 {
		t.Errorf("another local user reaches the jailed server: %+v", got)
	}

	t.Setenv(NoJailEnv, "1")
	exposed := start("exposed", "cmdai_probe_exposed")
	if exposed.Isolation.Isolated() || !strings.Contains(exposed.Isolation.String(), "every local user") {
		t.Fatalf("a server started with %s=1 says %q", NoJailEnv, exposed.Isolation)
	}
	if got := probeAs(t, other, exposed, "cmdai_probe_exposed"); len(got.Ports) != 1 {
		t.Errorf("the probe did not find the exposed server's collection on its port: %+v", got)
	}
}

// TestNoNamespaceStartsExposedAndSaysSo: on a kernel that gives no user
// namespace (here: this test's helper runs in one whose limit of nested
// namespaces is 0, as a sysctl or a restricting policy leaves a user),
// the private server still starts, on a loopback port, and says why
// every local user can reach it.
func TestNoNamespaceStartsExposedAndSaysSo(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CMDAI_TEST_NO_USERNS_DIR="+t.TempDir(), "CMDAI_CHROMA_BIN="+chromaBin(t))
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s%s", err, out, stderr.String())
	}
	var got struct{ URL, Exposed string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	t.Logf("%s: %s", got.URL, got.Exposed)
	if !strings.HasPrefix(got.URL, "http://127.0.0.1:") || !strings.Contains(got.Exposed, "no network namespace of its own") || !strings.Contains(got.Exposed, "unshare") {
		t.Errorf("without user namespaces the server runs at %s, exposed because %q", got.URL, got.Exposed)
	}
}

// runWithoutUserNamespaces is TestNoNamespaceStartsExposedAndSaysSo's
// helper (TestMain): in its own user namespace, it allows no nested one,
// starts a server over dir, prints its address and isolation, stops it.
func runWithoutUserNamespaces(dir string) {
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
		fmt.Fprintln(os.Stderr, "limit user namespaces:", err)
		os.Exit(1)
	}
	srv, err := StartServer(context.Background(), ServerOptions{Bin: os.Getenv("CMDAI_CHROMA_BIN"), DataDir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"URL": srv.URL, "Exposed": srv.Isolation.Exposed})
	srv.Stop()
	os.Exit(0)
}
