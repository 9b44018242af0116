#!/usr/bin/env python3
# The token size of sightline's MCP tool list and instructions, as a model
# reads them: `sightline mcp --no-daemon` is asked for them (without and with
# the edit tools), and they are counted with the Claude tokenizer the
# anthropic SDK shipped until 0.38 (tokenizer.json, read with `tokenizers`).
# With `--contexts FILE` it counts instead the contexts an agent's edits
# added (one JSON object per line with `when` and `context`, as
# benches/agent_edit.rs writes them): per edit that added any, the median,
# the 95th percentile and the largest.
# What a model reads of a tool is its name, description and input schema:
# Claude Code, Codex and Gemini CLI give it those as the function's
# definition; the annotations and the output schema stay with the client.
# Both are counted: what the model reads, and the whole tools/list JSON.
# With `--count BIN [ARGS...]` it prints only the first for the tool list
# `BIN mcp --no-daemon ARGS` gives (the test that keeps the default list
# within its budget runs this).
# Both packages are pinned in tools/requirements.txt (tools/install puts them
# in tools/.venv; anthropic is only read for its tokenizer.json, not run).
# Usage: tools/.venv/bin/python scripts/tool-tokens.py target/debug/sightline
#        tools/.venv/bin/python scripts/tool-tokens.py --count target/debug/sightline --tools all
#        tools/.venv/bin/python scripts/tool-tokens.py --contexts target/agent-edit-contexts.jsonl
import importlib.util, json, os, subprocess, sys
from tokenizers import Tokenizer
tok = Tokenizer.from_file(os.path.join(os.path.dirname(importlib.util.find_spec("anthropic").origin), "tokenizer.json"))
def count(s): return len(tok.encode(s).ids)
def read_by_model(tools):
    return json.dumps([{k: t[k] for k in ("name", "description", "inputSchema") if k in t} for t in tools])
def listed(args):
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/tmp")
    msgs = [
        {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"m","version":"1"}}},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":2,"method":"tools/list"},
    ]
    for m in msgs: p.stdin.write(json.dumps(m)+"\n"); p.stdin.flush()
    init = json.loads(p.stdout.readline()); tools = json.loads(p.stdout.readline())
    p.stdin.close(); p.wait()
    return init["result"].get("instructions",""), tools["result"]["tools"]
if sys.argv[1] == "--count":
    _, tools = listed([sys.argv[2], "mcp", "--no-daemon"] + sys.argv[3:])
    print(count(read_by_model(tools)))
    sys.exit(0)
if sys.argv[1] == "--contexts":
    rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    for when in ("cold", "warm"):
        n = sorted(count(r["context"]) for r in rows if r["when"] == when and r["context"])
        silent = sum(1 for r in rows if r["when"] == when and not r["context"])
        if n:
            print(f"{when}: {len(n)} edits added context: median {n[len(n)//2]} tokens, p95 {n[min(len(n)-1, round((len(n)-1)*0.95))]}, largest {n[-1]}; {silent} added nothing")
        else:
            print(f"{when}: no edit added context; {silent} added nothing")
    sys.exit(0)
for extra in ([], ["--edit-tools"], ["--tools", "minimal"]):
    instr, tools = listed([sys.argv[1], "mcp", "--no-daemon"] + extra)
    tl = json.dumps(tools)
    print(f"{' '.join(extra) or 'default'}: {len(tools)} tools, {count(read_by_model(tools))} tokens read by the model; the whole tool list {count(tl)} tokens ({len(tl)} bytes of JSON, with annotations and output schemas); instructions {count(instr)} tokens")
