// Package render writes search's answers as text for a reader that pays
// per token: the --context block for an assistant's prompt, the brief
// list of an MCP search, and one command's documentation or one option,
// all within a token budget.
package render
