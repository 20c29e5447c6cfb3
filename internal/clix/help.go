package clix

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// TopicCategory marks the hidden commands that are help topics (`cmdai
// help exit-codes`): not commands to run, but text the help command and
// the manual page show.
const TopicCategory = "help topic"

// HelpTopic is a help topic: a hidden command whose help is text, read
// with `APP help NAME` (or `APP NAME`). text starts with its "HEADING:"
// line, as a section of a manual page does.
func HelpTopic(name, usage, text string) *cli.Command {
	return &cli.Command{
		Name:     name,
		Usage:    usage,
		Category: TopicCategory,
		Hidden:   true,
		// A template of the text alone: no NAME or USAGE around it. The
		// text holds no template actions; escape any that might come.
		CustomHelpTemplate: strings.NewReplacer("{{", `{{"{{"}}`).Replace(text) + "\n",
		Description:        text,
		Action: func(c *cli.Context) error {
			if err := NoArgs(c, ""); err != nil {
				return err
			}
			_, err := fmt.Fprintln(c.App.Writer, text)
			return err
		},
	}
}

// Topics are the help topics among cmds.
func Topics(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if c.Category == TopicCategory {
			out = append(out, c)
		}
	}
	return out
}

// flagsTemplate lists a command's flags without a category first, in the
// order they are declared, then each category under its own heading (the
// name the flags give, as in "CHROMA OPTIONS"), also in declared order:
// the library sorts categorized flags by name, and shows the shared
// ones (seven --chroma-* on every command) among a command's own.
const flagsTemplate = `{{if .VisibleFlags}}

OPTIONS:{{range .VisibleFlags}}{{if not .GetCategory}}
   {{wrap .String 6}}{{end}}{{end}}{{range $cat := .VisibleFlagCategories}}{{if $cat.Name}}

{{$cat.Name}}:{{range $.VisibleFlags}}{{if eq .GetCategory $cat.Name}}
   {{wrap .String 6}}{{end}}{{end}}{{end}}{{end}}{{end}}`

// CommandHelpTemplate is the help of a command without subcommands: its
// flags as flagsTemplate lists them.
const CommandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}` + flagsTemplate + "\n"

// SubcommandHelpTemplate is the help of a command with subcommands.
const SubcommandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandCategoryTemplate" .}}{{end}}` + flagsTemplate + "\n"

// AppHelpTemplate is the app's help: its name and purpose, the usage
// line, the description as written (its headings, EXAMPLES, at the left
// margin as the manual page has them), then the commands, the global
// flags, where the rest of the help is (more) and the version.
func AppHelpTemplate(more string) string {
	return `{{.Name}}{{if .Usage}} - {{.Usage}}{{end}}

USAGE:
   {{.HelpName}} [global options] command [command options]{{if .Description}}

{{.Description}}{{end}}

COMMANDS:{{template "visibleCommandCategoryTemplate" .}}` +
		strings.Replace(flagsTemplate, "OPTIONS:", "GLOBAL OPTIONS:", 1) + `

` + strings.NewReplacer("{{", `{{"{{"}}`).Replace(more) + `{{if .Version}}{{if not .HideVersion}}

VERSION:
   {{.Version}}{{end}}{{end}}
`
}

// UseHelpTemplates gives every command of cmds and their subcommands
// CommandHelpTemplate or SubcommandHelpTemplate, but for help topics,
// which are their own text. (The library adds a help command to a leaf
// command when it runs it: the leaf's template lists no commands.)
func UseHelpTemplates(cmds []*cli.Command) {
	for _, c := range cmds {
		switch {
		case c.CustomHelpTemplate != "":
		case len(c.Subcommands) > 0:
			c.CustomHelpTemplate = SubcommandHelpTemplate
		default:
			c.CustomHelpTemplate = CommandHelpTemplate
		}
		UseHelpTemplates(c.Subcommands)
	}
}

// WithCategory puts flags under the heading category in help.
func WithCategory(category string, flags ...cli.Flag) []cli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Category = category
		case *cli.BoolFlag:
			f.Category = category
		case *cli.IntFlag:
			f.Category = category
		case *cli.DurationFlag:
			f.Category = category
		case *cli.StringSliceFlag:
			f.Category = category
		default:
			panic(fmt.Sprintf("clix.WithCategory: no category for a %T", f))
		}
	}
	return flags
}
