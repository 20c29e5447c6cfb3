// Package distro identifies the operating system and distribution this
// machine runs (debian-12, ubuntu-22.04, macos-14, windows-11) and derives
// the Chroma collection name an index for it is stored under.
package distro
