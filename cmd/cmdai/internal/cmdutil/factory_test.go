package cmdutil

import (
	"context"
	"testing"

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
