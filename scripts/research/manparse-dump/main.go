// Command manparse-dump prints what manparse makes of one man page file
// (plain or gzip-compressed): its blocks section by section, then its
// option and example records. A look at the parser's view of a page
// while studying scripts/research/option-recall.py's misses:
//
//	go run ./scripts/research/manparse-dump /usr/share/man/man8/ss.8.gz
//	go run ./scripts/research/manparse-dump -section EXAMPLES find.1.gz
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cmdai/cmdai/manparse"
)

func main() {
	section := flag.String("section", "", "only blocks of sections whose title contains this")
	blocks := flag.Bool("blocks", true, "print the blocks")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: manparse-dump [-section TITLE] [-blocks=false] PAGE")
		os.Exit(2)
	}
	src, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err == nil {
			src, err = io.ReadAll(zr)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	p, err := manparse.Parse(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sel := func(title string) bool { return *section == "" || strings.Contains(title, strings.ToUpper(*section)) }
	if *blocks {
		for _, s := range p.Sections {
			if !sel(s.Title) {
				continue
			}
			fmt.Printf("== %s\n", s.Title)
			for _, b := range s.Blocks {
				fmt.Printf("-- depth %d cont %v literal %v sub %q tag %q\n%s\n", b.Depth, b.Cont, b.Literal, b.Subsection, b.Tag, indent(b.Text))
			}
		}
	}
	for _, o := range p.Options {
		if sel(o.Section) {
			fmt.Printf("OPTION [%s] %q arg %q: %.100q\n", o.Section, o.Flags, o.Arg, o.Description)
		}
	}
	for _, e := range p.Examples {
		fmt.Printf("EXAMPLE command %q\n    description %.160q\n", e.Command, e.Description)
		if e.Notes != "" {
			fmt.Printf("    notes %.160q\n", e.Notes)
		}
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
