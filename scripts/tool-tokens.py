#!/usr/bin/env python3
# The token size of sightline's MCP tool list and instructions, as a model
# reads them: `sightline mcp --no-daemon` is asked for them (without and with
# the edit tools), and they are counted with the Claude tokenizer the
# anthropic SDK shipped until 0.38 (tokenizer.json, read with `tokenizers`).
# Usage: python3 -m venv /tmp/t && /tmp/t/bin/pip install anthropic==0.38.0 tokenizers
#        /tmp/t/bin/python scripts/tool-tokens.py target/debug/sightline
import json, subprocess, sys
from tokenizers import Tokenizer
import anthropic, os
tok = Tokenizer.from_file(os.path.join(os.path.dirname(anthropic.__file__), "tokenizer.json"))
def count(s): return len(tok.encode(s).ids)
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
