package cmdutil

import (
	"context"
	"errors"
	"testing"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/distro"
)

func TestResolveDistro(t *testing.T) {
	info, err := ResolveDistro(context.Background(), "", func(context.Context) (distro.Info, error) {
		return distro.Info{OS: "linux", ID: "fedora-38"}, nil
	})
	if err != nil || info.CollectionName() != "cmdai_linux_fedora-38" {
		t.Errorf("detected: %+v %v", info, err)
	}
	info, err = ResolveDistro(context.Background(), "macos-14", nil)
	if err != nil || info.CollectionName() != "cmdai_macos_14" {
		t.Errorf("--distro macos-14: %+v %v", info, err)
	}
	if _, err := ResolveDistro(context.Background(), "Debian 12", nil); ExitCode(err) != ExitUsage {
		t.Errorf("--distro 'Debian 12': %v (exit %d), want a usage error", err, ExitCode(err))
	}
}

func TestCheckFlags(t *testing.T) {
	if err := CheckDistroFlag(""); err != nil {
		t.Errorf("no --distro: %v", err)
	}
	if err := CheckDistroFlag("Debian 12"); ExitCode(err) != ExitUsage {
		t.Errorf("--distro 'Debian 12': %v", err)
	}
	if err := CheckModelFlags(ModelOptions{Variant: "fp32", Backend: "go"}); err != nil {
		t.Errorf("fp32 on go: %v", err)
	}
	for _, o := range []ModelOptions{{Variant: "fp16"}, {Backend: "cuda"}} {
		if err := CheckModelFlags(o); ExitCode(err) != ExitUsage {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

// TestNewFactory: the constructor fills every part a command may ask
// for, and OpenDistroIndex goes through the parts a test replaces.
func TestNewFactory(t *testing.T) {
	f := NewFactory(&IOStreams{}, func(string) string { return "" }, "1.2.3")
	if f.Connect == nil || f.Embedder == nil || f.ServeClient == nil || f.DetectDistro == nil || f.Version != "1.2.3" {
		t.Fatalf("NewFactory left a part empty: %+v", f)
	}
	f.DetectDistro = func(context.Context) (distro.Info, error) { return distro.Info{OS: "linux", ID: "arch"}, nil }
	var asked ChromaOptions
	f.Connect = func(_ context.Context, o ChromaOptions) (*connect.Connection, error) {
		asked = o
		return nil, WithCode(ExitUnreachable, errors.New("down"))
	}
	info, _, err := f.OpenDistroIndex(context.Background(), "", ChromaOptions{URL: "http://c:1"})
	if info.ID != "arch" || asked.URL != "http://c:1" || ExitCode(err) != ExitUnreachable {
		t.Errorf("detected %+v, Connect asked %+v, err %v", info, asked, err)
	}
	calls := 0
	f.Connect = func(context.Context, ChromaOptions) (*connect.Connection, error) { calls++; return nil, nil }
	if _, _, err := f.OpenDistroIndex(context.Background(), "Debian 12", ChromaOptions{}); ExitCode(err) != ExitUsage || calls != 0 {
		t.Errorf("a bad --distro: %v, %d connections; want a usage error before any", err, calls)
	}
}
