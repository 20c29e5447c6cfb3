#!/usr/bin/env python3
"""The answers of one cmdai binary through every front door, to compare
with another's: the worker of scripts/bench/compare-answers.sh (read its header
for what is compared and what is masked).

Usage (run with the venv of scripts/install-mcp-client.sh: the mcp doors
need PyPI's mcp client):
  compare-answers.py inputs WORK                 write WORK/{queries,commands,lines}.txt
  compare-answers.py subset WORK DEST            a few of them in DEST, for the degraded doors
  compare-answers.py cli BIN URL WORK OUT        index query --json, explain --json, index status --json (one-shot)
  compare-answers.py serve SOCKET WORK OUT       POST /v1/query, GET /v1/docs, POST /v1/explain, GET /v1/status
  compare-answers.py cli-via-serve BIN URL WORK OUT   index query/explain --json answered through a running serve
  compare-answers.py mcp WORK OUT -- BIN mcp ...  the four MCP tools through PyPI's mcp client
  compare-answers.py diff OLD_DIR NEW_DIR        compare each door's answers, exit 1 on any difference

Each door writes OUT: JSON lines {"key", "answer"}, one per request, in a
fixed order; answer is the exact bytes (as text) the door gave, with only
the masked fields replaced (mask()). Sizes come from the environment:
COMPARE_QUERIES (requests, default 150), COMPARE_CLI_QUERIES (of those,
the one-shot CLI asks the first 30), COMPARE_COMMANDS (docs, 100),
COMPARE_LINES (explain lines besides bench-explain-lines.txt, 200),
COMPARE_JOBS (one-shot processes at once, 2).
"""

import asyncio
import concurrent.futures
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse

STARTED = time.monotonic()


def repo_root():
    """The checkout this script is in (the directory with go.mod), wherever
    under scripts/ it sits."""
    d = os.path.dirname(os.path.abspath(__file__))
    while not os.path.exists(os.path.join(d, "go.mod")) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    return d


def repo_file(name):
    """name under the checkout."""
    path = os.path.join(ROOT, name)
    if not os.path.exists(path):
        raise SystemExit("compare-answers: no %s in %s" % (name, ROOT))
    return path


ROOT = repo_root()

# The only bytes that may differ run to run: how long an answer took.
# Everything else (pids and socket paths appear in no compared answer;
# built_at is the index's, the same on both sides) is compared as given.
MASK = re.compile(r'"(query_ms|explain_ms)":\s*-?[0-9][0-9.eE+-]*')


def mask(s):
    return MASK.sub(r'"\1":0', s)


def n_of(name, default):
    return int(os.environ.get(name, default))


# ---- inputs ---------------------------------------------------------------

# explain line templates over the commands of the docs set: help and
# version flags, an option no page documents, wrappers, pipes and lists
TEMPLATES = [
    "{c} --help",
    "{c} -v -- file.txt | sort -u",
    "sudo {c} --version && echo done",
    "{c} --no-such-option-xyz x",
    "env LC_ALL=C {c} -n 3 a b; {c} -- -x",
    "xargs -0 {c} -r < list.txt",
]


def inputs(work):
    with open(repo_file("search/evaluate/requests/requests-own.jsonl")) as f:
        reqs = [json.loads(l) for l in f if l.strip()]
    queries = [r["query"] for r in reqs][: n_of("COMPARE_QUERIES", 150)]
    commands = sorted({r["command"] for r in reqs})
    # spread over the alphabet rather than the first N
    want = n_of("COMPARE_COMMANDS", 100)
    step = max(1, len(commands) // max(1, want))
    commands = commands[::step][:want]
    with open(repo_file("scripts/bench/bench-explain-lines.txt")) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    extra = []
    for i, c in enumerate(commands):
        extra.append(TEMPLATES[i % len(TEMPLATES)].format(c=c))
        extra.append(TEMPLATES[(i + 3) % len(TEMPLATES)].format(c=c))
    lines += extra[: n_of("COMPARE_LINES", 200)]
    for name, items in [("queries", queries), ("commands", commands), ("lines", lines)]:
        with open(os.path.join(work, name + ".txt"), "w") as f:
            f.write("".join(i + "\n" for i in items))


def subset(work, dest):
    """The degraded doors' inputs in dest: the first COMPARE_DEGRADED
    (12) requests, twice that many commands, and 30 lines."""
    n = n_of("COMPARE_DEGRADED", 12)
    os.makedirs(dest, exist_ok=True)
    for name, k in [("queries", n), ("commands", 2 * n), ("lines", 30)]:
        with open(os.path.join(dest, name + ".txt"), "w") as f:
            f.write("".join(i + "\n" for i in read_list(work, name)[:k]))


def read_list(work, name):
    with open(os.path.join(work, name + ".txt")) as f:
        return [l.rstrip("\n") for l in f]


def write_answers(out, answers):
    with open(out, "w") as f:
        for key, answer in answers:
            f.write(json.dumps({"key": key, "answer": answer}) + "\n")
    print("  %s: %d answers in %.0f s" % (os.path.basename(out), len(answers), time.monotonic() - STARTED), file=sys.stderr)


# ---- requests shared by the doors -----------------------------------------

def query_requests(queries):
    """(key, request) pairs: every query in learned and keyword mode, every
    fourth in hybrid and with the context block, every eighth semantic
    and fused, a few with k and matches set; and some refused ones."""
    out = []
    for i, q in enumerate(queries):
        out.append(("learned %s" % q, {"request": q}))
        out.append(("keyword %s" % q, {"request": q, "mode": "keyword"}))
        if i % 4 == 0:
            out.append(("hybrid %s" % q, {"request": q, "mode": "hybrid"}))
            out.append(("context %s" % q, {"request": q, "with_context": True}))
        if i % 8 == 1:
            out.append(("semantic %s" % q, {"request": q, "mode": "semantic"}))
            out.append(("fused k=3 context %s" % q, {"request": q, "mode": "fused", "k": 3, "with_context": True, "max_tokens": 300}))
        if i % 16 == 2:
            out.append(("k=10 matches=3 %s" % q, {"request": q, "k": 10, "matches_count": 3}))
            out.append(("full %s" % q, {"request": q, "k": 2, "full": True}))
    out.append(("error empty", {"request": "   "}))
    out.append(("error k=0", {"request": "list files", "k": 0}))
    out.append(("error mode", {"request": "list files", "mode": "nonsense"}))
    return out


def cli_query_args(req):
    args = ["-k", str(req.get("k", 5))]
    if "mode" in req:
        args += ["--mode", req["mode"]]
    if req.get("with_context"):
        args += ["--context"]
    if "max_tokens" in req:
        args += ["--max-tokens", str(req["max_tokens"])]
    if "matches_count" in req:
        args += ["--matches", str(req["matches_count"])]
    if req.get("full"):
        args += ["--full"]
    return args


# ---- the CLI, one-shot ----------------------------------------------------

def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, env=env, timeout=300)
    return "exit %d\n--- stdout\n%s--- stderr\n%s" % (p.returncode, mask(p.stdout.decode("utf-8", "replace")),
                                                     p.stderr.decode("utf-8", "replace"))


def cli(binary, url, work, out, via_serve=False):
    queries = read_list(work, "queries")
    lines = read_list(work, "lines")
    env = dict(os.environ)
    where = ["--chroma-url", url]
    if via_serve:
        # every other request, through the serve of CMDAI_SOCKET: the
        # client side of the API (no --chroma-url: the CLI asks serve)
        where = []
        queries, lines = queries[::2], lines[::2]
    else:
        where.append("--no-serve")
    # one-shot queries load the model and the keyword index each (about
    # a second): fewer than the warm doors ask
    queries = queries[: n_of("COMPARE_CLI_QUERIES", 30)]
    jobs = []
    for key, req in query_requests(queries):
        # the CLI adds the context block with --context, serve with
        # with_context: the same request
        if req["request"].strip() == "":
            continue  # the CLI refuses an empty request before any door
        jobs.append(("query " + key, [binary, "index", "query", "--json"] + cli_query_args(req) + where + ["--", req["request"]]))
    for line in lines:
        jobs.append(("explain " + line, [binary, "explain", "--json"] + where + ["--", line]))
    jobs.append(("explain error unbalanced", [binary, "explain", "--json"] + where + ["--", "tar -xf 'a.tgz"]))
    if not via_serve:
        jobs.append(("status", [binary, "index", "status", "--json"] + where))
        jobs.append(("status detailed", [binary, "index", "status", "--json", "--detailed"] + where))
    # two at a time: each process spends much of its time starting up
    with concurrent.futures.ThreadPoolExecutor(max_workers=n_of("COMPARE_JOBS", 2)) as ex:
        answers = list(ex.map(lambda j: (j[0], run(j[1], env)), jobs))
    write_answers(out, answers)


# ---- serve over its unix socket -------------------------------------------

class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("cmdai", timeout=120)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(self.path)


def http_call(conn, method, path, body=None):
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    raw = r.read().decode("utf-8", "replace")
    return "%d %s\n%s" % (r.status, r.getheader("Content-Type"), mask(raw))


def serve(sock, work, out):
    conn = UnixConnection(sock)
    answers = []
    for key, req in query_requests(read_list(work, "queries")):
        answers.append(("query " + key, http_call(conn, "POST", "/v1/query", req)))
    for c in read_list(work, "commands") + ["git commit", "git-commit", "no-such-command-xyz"]:
        answers.append(("docs " + c, http_call(conn, "GET", "/v1/docs?" + urllib.parse.urlencode({"command": c}))))
    for line in read_list(work, "lines") + ["tar -xf 'a.tgz", "  "]:
        answers.append(("explain " + line, http_call(conn, "POST", "/v1/explain", {"line": line})))
    for path in ["/v1/status", "/v1/status?detailed=true", "/v1/nothing"]:
        answers.append(("status " + path, http_call(conn, "GET", path)))
    write_answers(out, answers)


# ---- MCP through PyPI's client --------------------------------------------

async def mcp_door(work, out, command):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    async def call(client, name, args):
        try:
            r = await client.call_tool(name, args)
        except MCPError as e:
            return "protocol error %d: %s" % (e.code, e.message)
        text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
        structured = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None)
        s = "is_error=%s\n--- text\n%s" % (r.is_error, text)
        if structured is not None:
            # the client hands it parsed: as it came, keys in order
            s += "\n--- structured\n" + mask(json.dumps(structured, ensure_ascii=False, separators=(",", ":")))
        return s

    calls = []
    queries = read_list(work, "queries")
    for i, q in enumerate(queries):
        calls.append(("search_commands", {"query": q}))
        calls.append(("search_commands", {"query": q, "mode": "keyword"}))
        if i % 4 == 0:
            calls.append(("search_commands", {"query": q, "mode": "hybrid", "k": 3}))
    sections = ["summary", "synopsis", "options", "examples", "all"]
    for i, c in enumerate(read_list(work, "commands") + ["git commit", "git-commit", "no-such-command-xyz"]):
        calls.append(("command_docs", {"command": c}))
        calls.append(("command_docs", {"command": c, "section": sections[i % len(sections)], "max_tokens": 300}))
        if i % 3 == 0:
            calls.append(("command_docs", {"command": c, "option": ["--help", "-v", "--version"][(i // 3) % 3]}))
    for line in read_list(work, "lines") + ["tar -xf 'a.tgz", "  "]:
        calls.append(("explain_command", {"line": line}))
    calls += [("index_status", {}), ("search_commands", {"query": "   "}), ("search_commands", {"query": "x", "k": 0}),
              ("no_such_tool", {})]
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    answers = []
    async with Client(server, read_timeout_seconds=300) as client:
        tools = (await client.list_tools()).tools
        listing = [{"name": t.name, "description": t.description,
                    "input": t.input_schema if hasattr(t, "input_schema") else t.inputSchema,
                    "output": getattr(t, "output_schema", None) or getattr(t, "outputSchema", None)} for t in tools]
        answers.append(("tools/list", json.dumps(listing, sort_keys=True)))
        for name, args in calls:
            answers.append(("%s %s" % (name, json.dumps(args, sort_keys=True)), await call(client, name, args)))
    write_answers(out, answers)


# ---- the comparison -------------------------------------------------------

def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f]


def first_difference(a, b):
    """Where a and b first differ: the line, the byte in it, and a window
    of each around it (answers are long one-line JSON)."""
    al, bl = a.split("\n"), b.split("\n")
    for n, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            break
    else:
        n = min(len(al), len(bl))
        return "    after line %d: %d lines old, %d new" % (n, len(al), len(bl))
    i = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    lo = max(0, i - 80)
    return "    line %d, byte %d:\n    old: ...%s...\n    new: ...%s..." % (n + 1, i, x[lo:i + 120], y[lo:i + 120])


def diff(old_dir, new_dir):
    doors = sorted(f for f in os.listdir(old_dir) if f.endswith(".jsonl"))
    failed = False
    total = total_same = 0
    for door in doors:
        shown = 0
        old = load(os.path.join(old_dir, door))
        new_path = os.path.join(new_dir, door)
        if not os.path.exists(new_path):
            print("%-16s MISSING on the new side" % door[:-6])
            failed = True
            continue
        new = load(new_path)
        same = sum(1 for a, b in zip(old, new) if a == b)
        n = max(len(old), len(new))
        total, total_same = total + n, total_same + same
        # a degraded answer did not come from Chroma: a door that should
        # have asked it did not (both sides alike would still compare equal)
        degraded = sum(1 for a in old if '"degraded":true' in a["answer"] or "\ndegraded: " in a["answer"] or "text\ndegraded: " in a["answer"])
        print("%-16s %4d compared, %4d identical%s%s" % (door[:-6], n, same, "" if same == n else ", %d DIFFER" % (n - same),
                                                       " (%d degraded answers)" % degraded if degraded else ""))
        if same == n:
            continue
        failed = True
        if len(old) != len(new):
            print("  %d answers on the old side, %d on the new" % (len(old), len(new)))
        for a, b in zip(old, new):
            if a == b or shown >= int(os.environ.get("COMPARE_SHOW", 2)):
                continue
            shown += 1
            print("  --- %s: %s" % (door[:-6], a["key"] if a["key"] == b["key"] else "%r vs %r" % (a["key"], b["key"])))
            print(first_difference(a["answer"], b["answer"]))
    print("%-16s %4d compared, %4d identical" % ("every door", total, total_same))
    return 1 if failed else 0


def main(argv):
    what = argv[0]
    if what == "inputs":
        inputs(argv[1])
    elif what == "subset":
        subset(argv[1], argv[2])
    elif what == "cli":
        cli(argv[1], argv[2], argv[3], argv[4])
    elif what == "cli-via-serve":
        cli(argv[1], argv[2], argv[3], argv[4], via_serve=True)
    elif what == "serve":
        serve(argv[1], argv[2], argv[3])
    elif what == "mcp":
        work, out = argv[1], argv[2]
        command = argv[argv.index("--") + 1:]
        asyncio.run(mcp_door(work, out, command))
    elif what == "diff":
        return diff(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
