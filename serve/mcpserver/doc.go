// Package mcpserver serves an index's search, documentation, status and
// command-line checks as Model Context Protocol tools, for AI agents
// (Claude Code, Cursor, Codex, ...). The tools check their arguments,
// make one call to an answer.Answerer and render its answer as the few
// lines an agent reads: the same Answerer, and so the same functions
// (answer.Search, answer.Judge), as `index query`, `explain` and serve's
// HTTP API. `cmdai mcp` gives it answer.ServeFirst: a running `cmdai serve`
// (serve.Remote) when one holds the index, else the index held in this
// process (session.Index), which Handover gives up to a serve that
// starts on its data. StdioTransport is MCP on stdin and stdout.
package mcpserver
