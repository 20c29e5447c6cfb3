package cmdutil

import (
	"errors"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/packaging"
)

// PublicKeyFlag is --public-key: a release key trusted beside the ones
// pinned in the build (a site's own mirror that signs what it serves, an
// air-gapped check with the key alone).
func PublicKeyFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "public-key", Usage: "also trust the minisign release key in `FILE` (a .pub file) or given as the key itself (RWQ…)", EnvVars: []string{"CMDAI_RELEASE_PUBLIC_KEY"}, Destination: dest}
}

// TrustedKeys are the release keys pinned in this build plus the one
// --public-key gives (a path to a .pub file, or the base64 key).
func TrustedKeys(flag string) ([]packaging.PublicKey, error) {
	keys, err := packaging.PinnedKeys()
	if err != nil {
		return nil, err
	}
	if flag = strings.TrimSpace(flag); flag == "" {
		return keys, nil
	}
	text, source := []byte(flag), "--public-key"
	data, readErr := os.ReadFile(flag)
	if readErr == nil {
		text, source = data, flag
	}
	extra, err := packaging.ParsePublicKeys(text, source)
	switch {
	case err != nil && readErr != nil && !errors.Is(readErr, os.ErrNotExist):
		return nil, UsageError("--public-key %s: %v", flag, readErr)
	case err != nil && readErr != nil:
		return nil, UsageError("--public-key %s: no such file, nor a minisign public key (give a .pub file, or the key itself: the base64 line RWQ…)", flag)
	case err != nil:
		return nil, UsageError("--public-key: %v", err)
	case len(extra) == 0:
		return nil, UsageError("--public-key %s holds no key (want a minisign .pub file, or the key itself: the base64 line RWQ…)", flag)
	}
	return append(keys, extra...), nil
}
