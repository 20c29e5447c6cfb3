package release

// PublishedIDs are the distributions the project's release workflow
// (.github/workflows/build-indexes.yml) builds an index for: what
// `cmdai index download <TAB>` offers without asking the network (a
// <TAB> press never waits for a server; --list asks the location).
var PublishedIDs = []string{
	"almalinux-9.8", "arch", "debian-12", "debian-13", "fedora-45",
	"macos-14", "macos-15", "ubuntu-22.04", "ubuntu-24.04", "ubuntu-26.04",
}
