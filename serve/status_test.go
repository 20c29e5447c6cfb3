package serve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cmdai/cmdai/answer"
)

// TestStatusCarriesTheCallersEnvironment: the caller's PATH and MANPATH
// reach the Backend as sent (an empty PATH too); a request without them
// leaves the Backend to its own environment; concurrent requests each get
// their own.
func TestStatusCarriesTheCallersEnvironment(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	c := dial(t, socket)
	ctx := context.Background()
	st, err := c.StatusOf(ctx, answer.StatusRequest{Detailed: true})
	if err != nil || st.Server.URL != "serve's own" || st.Server.Mode != "true" {
		t.Errorf("without an environment: %+v %v; want serve's own, detailed", st.Server, err)
	}
	for _, env := range []answer.ScanEnv{{Path: "/opt/x/bin:/usr/bin", ManPath: ":/opt/x/man"}, {Path: "", ManPath: ""}, {Path: "/a b/bin:/c&d=e/bin+%"}} {
		st, err := c.StatusOf(ctx, answer.StatusRequest{Env: &env})
		if err != nil || st.Server.URL != env.Path || st.Server.Version != env.ManPath || st.Server.Mode != "false" {
			t.Errorf("%+v: %+v %v; want it as sent", env, st.Server, err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := answer.ScanEnv{Path: fmt.Sprintf("/bin%d", i), ManPath: fmt.Sprintf("/man%d", i)}
			st, err := c.StatusOf(ctx, answer.StatusRequest{Env: &env})
			if err != nil || st.Server.URL != env.Path || st.Server.Version != env.ManPath {
				errs <- fmt.Errorf("request %d: %+v %v", i, st.Server, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStatusBadInput: each bad status parameter is a 400 JSON error
// (exit code 2) saying what is wrong; serve keeps serving.
func TestStatusBadInput(t *testing.T) {
	socket, _ := start(t, &fakeBackend{}, Options{})
	long := url.QueryEscape(strings.Repeat("/usr/bin:", MaxEnvBytes/9+1))
	for _, c := range []struct{ name, query, want string }{
		{"unknown parameter", "?verbose=1", `unknown parameter \"verbose\"`},
		{"two paths", "?path=/bin&path=/usr/bin", "path given 2 times"},
		{"bad detailed", "?detailed=maybe", `detailed=\"maybe\"`},
		{"manpath alone", "?manpath=/usr/share/man", "manpath without path"},
		{"long path", "?path=" + long, "path of"},
		{"long manpath", "?path=/bin&manpath=" + long, "manpath of"},
		{"NUL in path", "?path=/bin%00/usr/bin", "NUL"},
		{"NUL in manpath", "?path=/bin&manpath=/man%00", "NUL"},
		{"relative manpath", "?path=/bin&manpath=/usr/share/man:man", `manpath entry \"man\" is relative`},
		{"bad escape", "?path=%zz", "bad query string"},
	} {
		status, body := get(t, socket, "/v1/status"+c.query)
		if status != 400 || !strings.Contains(body, c.want) || !strings.Contains(body, `"exit_code":2`) {
			t.Errorf("%s: %d %s; want 400 with %q", c.name, status, body, c.want)
		}
	}
	// the longest allowed values of both, every byte escaped, still fit
	full := answer.ScanEnv{Path: strings.Repeat(":", MaxEnvBytes), ManPath: strings.Repeat("/", MaxEnvBytes)}
	if st, err := dial(t, socket).StatusOf(context.Background(), answer.StatusRequest{Env: &full}); err != nil || st.Server.URL != full.Path {
		t.Errorf("status with the largest environment: %v", err)
	}
	if status, body := get(t, socket, "/v1/status?detailed=false&path=/bin&manpath="); status != 200 {
		t.Errorf("after the bad input: %d %s", status, body)
	}
	var se *Error
	if err := CheckScanEnv(answer.ScanEnv{ManPath: "rel"}); !errors.As(err, &se) || se.Status != 400 {
		t.Errorf("CheckScanEnv of a relative manpath: %v", err)
	}
	if err := CheckScanEnv(answer.ScanEnv{Path: "/bin", ManPath: ":/opt/man:"}); err != nil {
		t.Errorf("CheckScanEnv of a good one: %v", err)
	}
}
