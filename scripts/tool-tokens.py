#!/usr/bin/env python3
# The token size of sightline's MCP tool list and instructions, as a model
# reads them: `sightline mcp --no-daemon` is asked for them (without and with
# the edit tools), and they are counted with the Claude tokenizer the
# anthropic SDK shipped until 0.38 (tokenizer.json, read with `tokenizers`).
# With `--contexts FILE` it counts instead the contexts an agent's edits
# added (one JSON object per line with `when` and `context`, as
# benches/agent_edit.rs writes them): per edit that added any, the median,
# the 95th percentile and the largest.
# Usage: python3 -m venv /tmp/t && /tmp/t/bin/pip install anthropic==0.38.0 tokenizers
#        /tmp/t/bin/python scripts/tool-tokens.py target/debug/sightline
#        /tmp/t/bin/python scripts/tool-tokens.py --contexts target/agent-edit-contexts.jsonl
import json, subprocess, sys
from tokenizers import Tokenizer
import anthropic, os
tok = Tokenizer.from_file(os.path.join(os.path.dirname(anthropic.__file__), "tokenizer.json"))
def count(s): return len(tok.encode(s).ids)
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
for edit in (False, True):
    args = [sys.argv[1], "mcp", "--no-daemon"] + (["--edit-tools"] if edit else [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/tmp")
    msgs = [
        {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"m","version":"1"}}},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":2,"method":"tools/list"},
    ]
    for m in msgs: p.stdin.write(json.dumps(m)+"\n"); p.stdin.flush()
    init = json.loads(p.stdout.readline()); tools = json.loads(p.stdout.readline())
    p.stdin.close(); p.wait()
    instr = init["result"].get("instructions","")
    tl = json.dumps(tools["result"]["tools"])
    print(f"edit_tools={edit}: {len(tools['result']['tools'])} tools, tool list {count(tl)} tokens ({len(tl)} bytes of JSON); instructions {count(instr)} tokens")
