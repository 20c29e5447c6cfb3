#!/usr/bin/env python3
"""Checks `cmdai mcp` end to end through PyPI's `mcp` client (2.3.0), a
client we did not write.

Usage: mcp-client-check.py [--calls N] -- COMMAND [ARG...]
  COMMAND [ARG...] starts the server (e.g. bin/cmdai mcp) with this
  process's environment; it must answer from an index that holds find and
  grep. Run it with the venv of scripts/install/install-mcp-client.sh.

Checks: the four tools are listed with their schemas; search_commands
for "find files modified today" has find in its top 3 (the small test
index makes first place unreliable; first is reported); command_docs gives
grep's --count text (and with --subcommand, a subcommand's synopsis,
asked as it is run and as its page is named); explain_command finds tar's and grep's options in
"tar -xzvf a.tgz -C /tmp | grep -c foo" (ok, with the options' texts and
the whole result as structured content) and --zstdx unknown in
"tar --zstdx f" (NOT OK); index_status answers; an unknown tool, a wrong
argument type, an empty query and a line the shell cannot parse each get
an MCP error (a protocol error
or a result with isError), and the next call still answers.

Prints one JSON line of figures on stdout: the size in bytes of a
search_commands and a command_docs answer, the time of the first (cold)
call and of the first hybrid one (which loads the keyword index), and the
median and p95 of N warm calls of each tool (search in semantic and hybrid
mode). With
--requests FILE (JSON lines {"request", "command"}, as
cmd/cmdai/testdata/requests.jsonl), also over those requests, each asked
once: search_commands (k=5) and command_docs (the expected command, all
sections, default budget) answer sizes and warm times, median and max.
Exits 1 with what failed on stderr.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(client, name, args):
    """Returns (is_error, text): a protocol error counts as an error."""
    try:
        r = await client.call_tool(name, args)
    except MCPError as e:
        return True, "MCP error %d: %s" % (e.code, e.message)
    return r.is_error, text_of(r)


async def timed(client, name, args, n):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        is_err, _ = await call(client, name, args)
        times.append((time.perf_counter() - start) * 1000)
        check(not is_err, "warm %s %s failed" % (name, args))
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[min(len(times) - 1, int(len(times) * 0.95))], 2)}


def spread(values):
    values = sorted(values)
    return {"n": len(values), "median": round(statistics.median(values), 1), "max": round(values[-1], 1)}


async def over_requests(client, path):
    """Sizes and times of search_commands and command_docs over requests."""
    with open(path) as f:
        reqs = [json.loads(l) for l in f if l.strip()]
    sizes = {"search_commands": [], "command_docs": []}
    times = {"search_commands": [], "command_docs": []}
    for r in reqs:
        for name, args in [("search_commands", {"query": r["request"], "k": 5}), ("command_docs", {"command": r["command"]})]:
            start = time.perf_counter()
            is_err, out = await call(client, name, args)
            elapsed = (time.perf_counter() - start) * 1000
            if is_err:
                continue  # a command this index does not hold
            sizes[name].append(len(out.encode()))
            times[name].append(elapsed)
    return {name: {"bytes": spread(sizes[name]), "ms": spread(times[name])} for name in sizes if sizes[name]}


async def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20, help="warm calls per tool for the timings")
    ap.add_argument("--requests", help="JSON lines of {request, command} to measure over")
    ap.add_argument("--expect-holder", help="index_status must say the index is held by this (e.g. 'cmdai serve')")
    ap.add_argument("--answers", help="write the tools' answers (text) as JSON to this file, to compare runs")
    ap.add_argument("--subcommand", help="a subcommand the index holds, as it is run (e.g. 'git commit'): command_docs must give its page, "
                    "as that and as its page's name (git-commit)")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args(argv)
    server = StdioServerParameters(command=a.command[0], args=a.command[1:], env=dict(os.environ))
    figures = {}
    async with Client(server, read_timeout_seconds=120) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name, props in {"search_commands": ["query", "k", "mode"], "command_docs": ["command", "option", "section", "max_tokens"],
                            "explain_command": ["line"], "index_status": []}.items():
            t = tools.get(name)
            check(t is not None, "tool %s not listed (got %s)" % (name, sorted(tools)))
            if t is None:
                continue
            schema = t.input_schema if hasattr(t, "input_schema") else t.inputSchema
            check(schema.get("type") == "object", "%s's schema is not an object: %s" % (name, schema))
            for p in props:
                check(p in schema.get("properties", {}), "%s's schema lacks %s: %s" % (name, p, schema))
            check(bool(t.description), "%s has no description" % name)
            # every tool titled and structured (issue 46): the client checks
            # each structured answer against its output schema
            check(bool(getattr(t, "title", None)), "%s has no title" % name)
            out_schema = getattr(t, "output_schema", None) or getattr(t, "outputSchema", None)
            check(bool(out_schema), "%s has no output schema" % name)

        start = time.perf_counter()
        is_err, found = await call(client, "search_commands", {"query": "find files modified today", "k": 5})
        figures["first_call_ms"] = round((time.perf_counter() - start) * 1000, 1)
        check(not is_err, "search_commands failed: " + found)
        names = [l.split(". ", 1)[1].split("(")[0].split(" ")[0] for l in found.splitlines() if l[:1].isdigit() and ". " in l]
        check("find" in names[:3], "find not in the top 3 for 'find files modified today': %s\n%s" % (names, found))
        figures["find_rank"] = names.index("find") + 1 if "find" in names else None
        figures["search_commands_bytes"] = len(found.encode())

        is_err, count = await call(client, "command_docs", {"command": "grep", "option": "--count"})
        check(not is_err and "--count" in count and "count of matching lines" in count, "grep --count: %s" % count)
        is_err, docs = await call(client, "command_docs", {"command": "grep"})
        check(not is_err and "SYNOPSIS" in docs and "--count" in docs, "grep docs: %s" % docs)
        figures["command_docs_option_bytes"] = len(count.encode())
        figures["command_docs_bytes"] = len(docs.encode())

        if a.subcommand:
            page = a.subcommand.replace(" ", "-")
            is_err, sub = await call(client, "command_docs", {"command": a.subcommand, "section": "synopsis"})
            check(not is_err and a.subcommand in sub, "command_docs %r: %s" % (a.subcommand, sub))
            is_err, sub_page = await call(client, "command_docs", {"command": page, "section": "synopsis"})
            check(not is_err and sub_page == sub, "command_docs %r: %s; want the same as %r" % (page, sub_page, a.subcommand))

        line = "tar -xzvf a.tgz -C /tmp | grep -c foo"
        r = await client.call_tool("explain_command", {"line": line})
        explained = text_of(r)
        structured = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None) or {}
        check(not r.is_error and explained.startswith("ok:") and "--extract" in explained and "--count" in explained,
              "explain_command %r: %s" % (line, explained))
        check(structured.get("line") == line and structured.get("ok") is True and
              [c.get("command") for c in structured.get("commands", [])] == ["tar", "grep"],
              "explain_command's structured content: %s" % json.dumps(structured)[:500])
        figures["explain_command_bytes"] = len(explained.encode())
        is_err, unknown_opt = await call(client, "explain_command", {"line": "tar --zstdx f"})
        check(not is_err and unknown_opt.startswith("NOT OK") and "--zstdx: unknown option" in unknown_opt,
              "explain_command 'tar --zstdx f': %s" % unknown_opt)

        is_err, status = await call(client, "index_status", {})
        check(not is_err and "records" in status, "index_status: %s" % status)
        r = await client.call_tool("index_status", {})
        st = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None) or {}
        check(st.get("records_count", 0) > 0 and st.get("collection", "").startswith("cmdai_") and "held_by" in st,
              "index_status's structured content: %s" % json.dumps(st)[:500])
        r = await client.call_tool("search_commands", {"query": "find files modified today", "k": 5})
        sc = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None) or {}
        # the object `cmdai search --json` prints, each command with its choice
        check("find" in [c.get("command") for c in sc.get("commands", [])][:3] and not sc.get("degraded") and
              sc.get("schema_version") == 1 and sc.get("request") == "find files modified today" and
              all("matches" in c and "flags" in c and "invocation" in c for c in sc.get("commands", [])),
              "search_commands' structured content: %s" % json.dumps(sc)[:500])
        r = await client.call_tool("command_docs", {"command": "grep", "request": "count matching lines"})
        dc = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None) or {}
        # the object `cmdai show --json` prints, with the choice
        check(dc.get("command") == "grep" and dc.get("schema_version") == 1 and
              any(rec.get("option") == "--count" for rec in dc.get("records", [])) and dc.get("invocation") == "grep",
              "command_docs' structured content: %s" % json.dumps(dc)[:500])
        figures["command_docs_structured_bytes"] = len(json.dumps(dc).encode())
        if a.expect_holder:
            check("held by " + a.expect_holder in status, "index_status does not say held by %s: %s" % (a.expect_holder, status))
        if a.answers:
            is_err, hybrid = await call(client, "search_commands", {"query": "count lines in a file", "mode": "hybrid", "k": 3})
            check(not is_err, "hybrid search_commands failed: " + hybrid)
            is_err, unknown = await call(client, "command_docs", {"command": "no-such-command-xyz"})
            with open(a.answers, "w") as f:
                json.dump({"search_commands": found, "search_commands_hybrid": hybrid, "command_docs_option": count,
                           "command_docs": docs, "command_docs_unknown": unknown,
                           "explain_command": explained, "explain_command_unknown_option": unknown_opt}, f)

        for what, name, args in [
            ("unknown tool", "no_such_tool", {}),
            ("wrong argument type", "search_commands", {"query": 42}),
            ("empty query", "search_commands", {"query": "   "}),
            ("unknown command", "command_docs", {"command": "no-such-command-xyz"}),
            ("k out of range", "search_commands", {"query": "list files", "k": 0}),
            ("unbalanced quote", "explain_command", {"line": "tar -xf 'a.tgz"}),
            ("empty line", "explain_command", {"line": "  "}),
        ]:
            is_err, msg = await call(client, name, args)
            check(is_err, "%s got no error: %s" % (what, msg))
            print("%s -> %s" % (what, msg.strip().replace("\n", " ")), file=sys.stderr)
            ok, after = await call(client, "index_status", {})
            check(not ok and "records" in after, "no answer after the %s: %s" % (what, after))

        figures["search_commands_warm"] = await timed(client, "search_commands", {"query": "count lines in a file", "k": 5}, a.calls)
        start = time.perf_counter()
        is_err, out = await call(client, "search_commands", {"query": "count lines in a file", "mode": "hybrid"})
        check(not is_err, "hybrid search_commands failed: " + out)
        figures["first_hybrid_call_ms"] = round((time.perf_counter() - start) * 1000, 1)
        figures["search_commands_hybrid_warm"] = await timed(client, "search_commands", {"query": "count lines in a file", "mode": "hybrid"}, a.calls)
        figures["command_docs_warm"] = await timed(client, "command_docs", {"command": "grep", "option": "--count"}, a.calls)
        figures["explain_command_warm"] = await timed(client, "explain_command", {"line": line}, a.calls)
        if a.requests:
            figures["over_requests"] = await over_requests(client, a.requests)
    print(json.dumps(figures))
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
