//go:build !unix

package helpfixture

// Main does nothing off unix, where fixtures are not run.
func Main() {}
