package pages

import (
	"os"
	"testing"

	"github.com/cmdai/cmdai/scanner/helprun/helpfixture"
)

// TestMain lets this test binary act as a made-up command that prints
// --help (helpfixture).
func TestMain(m *testing.M) {
	helpfixture.Main()
	os.Exit(m.Run())
}
