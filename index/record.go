// Package index is the schema of an index: the typed Record and its
// metadata, the collection metadata and its schema version, and the kinds
// and sources of records and the statuses of scanned commands. It is the
// only package that knows the metadata keys Chroma stores; everything
// else reads and writes typed fields.
package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/cmdai/cmdai/customdocs"
	"github.com/cmdai/cmdai/manparse"
)

// Kind is what part of a page or doc a record holds. The values are
// manparse's (which stays pure and knows nothing of the index).
type Kind string

// Kinds of records.
const (
	KindSummary Kind = manparse.KindSummary // NAME + SYNOPSIS + the start of DESCRIPTION
	KindOption  Kind = manparse.KindOption  // one option entry
	KindExample Kind = manparse.KindExample // one example
	KindSection Kind = manparse.KindSection // a piece of any other section
)

// Source is where a record's text comes from. The doc sources' values are
// customdocs' (which knows nothing of the index).
type Source string

// Sources of records.
const (
	SourceMan    Source = "man"                   // an installed man page
	SourceHelp   Source = "help"                  // a command's --help output
	SourceCustom Source = customdocs.SourceCustom // a user's command doc
	SourceHint   Source = customdocs.SourceHint   // a user's hint
)

// IsDoc reports sources that are users' files, not the machine's pages.
func (s Source) IsDoc() bool { return s == SourceCustom || s == SourceHint }

// Status is what became of one command when it was scanned for the
// index (`index scan` prints it; a build counts it).
type Status string

// Statuses of a scanned command.
const (
	StatusParsed    Status = "parsed"      // documented by its man page (or --help)
	StatusAlias     Status = "alias"       // shares the man page of another command
	StatusNoManPage Status = "no_man_page" // nothing to index
	StatusFailed    Status = "failed"      // its page could not be read or parsed
	StatusDenied    Status = "denied"      // --help fallback refused to run it
	// StatusNotSubcommand is a page named like a subcommand's
	// (gpg-wks-client(1) beside gpg) whose SYNOPSIS does not show one:
	// nothing to index.
	StatusNotSubcommand Status = "not_subcommand"
)

// Record is one chunk of an index: a stable id, the text embedded, its
// vector, and typed metadata. Its JSON (what `index scan --json` prints)
// holds the metadata as Chroma stores it.
type Record struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Tokens is the text's length in word pieces; it is not stored.
	Tokens    int       `json:"tokens"`
	Metadata  Metadata  `json:"metadata"`
	Embedding []float32 `json:"embedding,omitempty"`
}

// Metadata is what a record carries for a consumer that has none of our
// code. Which keys are stored follows the source: a page's record (man,
// help) always has man_section and installed_path, and is_gnu when it has
// a version; a doc's (custom, hint) always has fingerprint and doc_path;
// the other optional fields are stored only when set.
type Metadata struct {
	Command string
	Kind    Kind
	// Section is the title of the page section the text comes from.
	Section string
	// Option is an option record's main flag.
	Option string
	Source Source
	Distro string
	OS     string
	// IndexedAt is when the record was made (stored to the second).
	IndexedAt time.Time
	// ContentHash is the text's SHA-256 (ContentHash): with Fingerprint,
	// what decides that a stored record needs no rewrite.
	ContentHash string
	// Fingerprint is the installed state of the command, or a doc's file.
	Fingerprint string
	// Version is a doc's own (its frontmatter's `version`). A page's
	// version is its owning package's (PackageVersion): ShownVersion
	// picks.
	Version string
	// IsGNU says the page's source field names GNU (pages with one only).
	IsGNU       bool
	Description string
	Aliases     []string
	// Parent is set on a subcommand page's records: the command the
	// page's subcommand belongs to ("git" on git-commit(1)'s), whose
	// first word a command line starts with.
	Parent string

	// Pages only.
	ManSection    string
	InstalledPath string
	ManPage       string
	// PageSource is the title line's source field ("GNU coreutils 9.1",
	// "TAR", "Info-ZIP"): what the page says of its origin, often not a
	// version, so never shown as one. Indexes written before it was kept
	// held it as `version`; FromChroma reads that here.
	PageSource string
	// Package and PackageVersion are those of the installed package
	// owning the command's executable (dpkg or rpm, pkgdb); empty when
	// none does or the system has no package database, and in indexes
	// written before they were kept. (Its priority is not kept: as a
	// ranking prior it lowered hit@1 on the train split, and each key
	// costs every record a metadata row: BENCHMARKS.md.)
	Package        string
	PackageVersion string
	// References are the pages a man page refers to by name ("ls(1)"),
	// kept on its summary record alone (manparse.Page.References): what
	// search counts to know how many pages refer to a command.
	References []string

	// Docs only.
	DocPath     string
	Priority    string
	Keywords    []string
	RelevantFor string
}

// Record metadata keys: only this package knows them.
const (
	keyCommand       = "command"
	keyKind          = "kind"
	keySection       = "section"
	keyOption        = "option"
	keySource        = "source"
	keyDistro        = "distro"
	keyOS            = "os"
	keyIndexedAt     = "indexed_at"
	keyContentHash   = "content_hash"
	keyFingerprint   = "fingerprint"
	keyVersion       = "version"
	keyIsGNU         = "is_gnu"
	keyDescription   = "description"
	keyAliases       = "aliases"
	keyParent        = "parent_command"
	keyManSection    = "man_section"
	keyInstalledPath = "installed_path"
	keyManPage       = "man_page"
	keyPageSource    = "page_source"
	keyPackage       = "package"
	keyPackageVer    = "package_version"
	keyReferences    = "references"
	keyDocPath       = "doc_path"
	keyPriority      = "priority"
	keyKeywords      = "keywords"
	keyRelevantFor   = "relevant_for"
	// keyAuth is the record's authenticator: an HMAC-SHA256 (RecordKey)
	// over its id, text and every other key, so that a record rewritten
	// through Chroma's API by anyone but cmdai (the private server
	// listens on loopback TCP without authentication; a shared one may
	// be open to more) is known and never shown.
	keyAuth = "cmdai_auth"
	// keyVectorAuth is the authenticator of the record's vector: an
	// HMAC-SHA256 over its id and the vector's exact bytes, itself
	// covered by keyAuth. A vector copied from another record, or any
	// other, fails it.
	keyVectorAuth = "cmdai_vector_auth"
)

// ShownVersion is the version to show for the command: its owning
// package's for a page, a doc's own, or "" (no package owns it, or the
// system has no package database): never a guess.
func (m Metadata) ShownVersion() string {
	if m.Source.IsDoc() {
		return m.Version
	}
	return m.PackageVersion
}

// ContentHash is the hash a record's metadata holds for its text.
func ContentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// ToChroma is the metadata as Chroma stores it: scalar values only (lists
// are comma-joined; names hold no commas), and the key set the type's
// comment describes.
func (m Metadata) ToChroma() map[string]any {
	md := map[string]any{
		keyCommand: m.Command, keyKind: string(m.Kind), keySection: m.Section, keySource: string(m.Source),
		keyDistro: m.Distro, keyOS: m.OS, keyIndexedAt: m.IndexedAt.UTC().Format(time.RFC3339),
		keyContentHash: m.ContentHash,
	}
	set := func(k, v string) {
		if v != "" {
			md[k] = v
		}
	}
	if m.Source.IsDoc() {
		md[keyFingerprint], md[keyDocPath] = m.Fingerprint, m.DocPath
		set(keyPriority, m.Priority)
		set(keyKeywords, strings.Join(m.Keywords, ","))
		set(keyRelevantFor, m.RelevantFor)
	} else {
		md[keyManSection], md[keyInstalledPath] = m.ManSection, m.InstalledPath
		set(keyFingerprint, m.Fingerprint)
		set(keyManPage, m.ManPage)
		set(keyPageSource, m.PageSource)
		if m.PageSource != "" {
			md[keyIsGNU] = m.IsGNU
		}
		set(keyPackage, m.Package)
		set(keyPackageVer, m.PackageVersion)
		set(keyReferences, strings.Join(m.References, ","))
	}
	set(keyOption, m.Option)
	if m.Source.IsDoc() {
		set(keyVersion, m.Version)
	}
	set(keyDescription, m.Description)
	set(keyAliases, strings.Join(m.Aliases, ","))
	set(keyParent, m.Parent)
	return md
}

// FromChroma reads metadata back as Chroma (or an export) holds it;
// missing keys stay zero and keys of no field are ignored.
func FromChroma(md map[string]any) Metadata {
	str := func(k string) string { s, _ := md[k].(string); return s }
	list := func(k string) []string {
		if s := str(k); s != "" {
			return strings.Split(s, ",")
		}
		return nil
	}
	m := Metadata{
		Command: str(keyCommand), Kind: Kind(str(keyKind)), Section: str(keySection), Option: str(keyOption),
		Source: Source(str(keySource)), Distro: str(keyDistro), OS: str(keyOS),
		ContentHash: str(keyContentHash), Fingerprint: str(keyFingerprint), Version: str(keyVersion),
		Description: str(keyDescription), Aliases: list(keyAliases), Parent: str(keyParent),
		ManSection: str(keyManSection), InstalledPath: str(keyInstalledPath), ManPage: str(keyManPage),
		DocPath: str(keyDocPath), Priority: str(keyPriority), Keywords: list(keyKeywords), RelevantFor: str(keyRelevantFor),
	}
	m.IsGNU, _ = md[keyIsGNU].(bool)
	if !m.Source.IsDoc() {
		// a page's `version` is the source field as indexes before
		// page_source held it (schema 1 too): never a version
		m.PageSource, m.Version = str(keyPageSource), ""
		if m.PageSource == "" {
			m.PageSource = str(keyVersion)
		}
		m.Package, m.PackageVersion = str(keyPackage), str(keyPackageVer)
		m.References = list(keyReferences)
	}
	if t, err := time.Parse(time.RFC3339, str(keyIndexedAt)); err == nil {
		m.IndexedAt = t
	}
	return m
}

// MarshalJSON writes the metadata as Chroma stores it.
func (m Metadata) MarshalJSON() ([]byte, error) { return json.Marshal(m.ToChroma()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var md map[string]any
	if err := json.Unmarshal(b, &md); err != nil {
		return err
	}
	*m = FromChroma(md)
	return nil
}

// WhereKind selects the records of one kind.
func WhereKind(k Kind) map[string]string { return map[string]string{keyKind: string(k)} }

// WhereCommand selects one command's records.
func WhereCommand(cmd string) map[string]string { return map[string]string{keyCommand: cmd} }

// WhereParent selects the records of a command's subcommand pages.
func WhereParent(cmd string) map[string]string { return map[string]string{keyParent: cmd} }

// WhereSource selects the records of one source.
func WhereSource(s Source) map[string]string { return map[string]string{keySource: string(s)} }

// PlaceRecord sets the distro and os of record metadata md (as an export
// holds it) when it has them, leaving every other key as it was: an
// import holds exactly what was exported, placed on its distribution.
func PlaceRecord(md map[string]any, distro, os string) {
	if _, ok := md[keyDistro]; ok {
		md[keyDistro], md[keyOS] = distro, os
	}
}
