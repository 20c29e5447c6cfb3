// Package builder builds, refreshes and reports on one distribution's
// index: named stages (scan, parse and chunk, diff against what the
// collection holds, embed through the cache, write) on one errgroup,
// joined by bounded channels, with man pages, --help output, users'
// command docs and hints as sources feeding the same stream.
package builder
