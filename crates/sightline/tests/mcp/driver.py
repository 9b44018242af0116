"""Drives `sightline mcp` with the official MCP Python SDK, for the Rust tests.

Reads one JSON command per line on stdin and writes one JSON result per line
on stdout. Several sessions (each its own `sightline mcp` process) can be open
at once. Commands:

  {"cmd": "open", "session": S, "command": BIN, "args": [...], "cwd": DIR,
   "env": {...}, "errlog": FILE}              -> {"server", "protocol", "pid"}
  {"cmd": "open", "session": S, "url": U, "token": T}
                                               -> the same, over Streamable HTTP
  {"cmd": "http", "url": U, "headers": {...}, "body": {...}}
                                               -> {"status", "body"}: one raw POST
  {"cmd": "list", "session": S}                -> {"tools": [...]} (schemas checked)
  {"cmd": "call", "session": S, "tool": T, "args": {...}, "progress": bool}
                                               -> {"text", "isError", "progress"}
                                                  or {"protocol_error": {...}}
  {"cmd": "cancel", "session": S, "tool": T, "args": {...}, "file": F,
   "started": TEXT, "cancelled": TEXT}         -> {"cancelled": id}
  {"cmd": "close", "session": S}               -> {"closed": S}
  {"cmd": "resources", "session": S}           -> {"resources": [...], "templates": [...]}
  {"cmd": "read", "session": S, "uri": U}      -> {"text"} or {"protocol_error": {...}}
  {"cmd": "subscribe", "session": S, "uri": U} -> {"subscribed": U} or {"protocol_error"}
  {"cmd": "updated", "session": S, "uri": U, "seconds": N}
                                               -> {"updated": U} once the server said
                                                  the resource changed (since the
                                                  subscription), or {"timed_out": U}
  {"cmd": "logs", "session": S, "contains": TEXT, "seconds": N}
                                               -> {"logs": [{"level", "data"}, ...]}: the
                                                  log messages so far, once one holds
                                                  TEXT (or N seconds passed)
  {"cmd": "together", "calls": [{"session", "tool", "args", "after_ms"}, ...]}
                                               -> {"results": [...]}: each call
                                                  started after_ms after the first,
                                                  all running at once; results in order,
                                                  each with started_ms and ended_ms
"""

import json
import os
import sys
import time
from contextlib import AsyncExitStack

import urllib.error
import urllib.request

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

# The HTTP sessions are on loopback: a proxy in the environment must not
# carry them (httpx and urllib both read these).
for _name in list(os.environ):
    if _name.lower() in ("http_proxy", "https_proxy", "all_proxy"):
        del os.environ[_name]


def children_named(name):
    """Pids of this process's children whose command line mentions `name`."""
    me = str(os.getpid())
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = stat.rsplit(")", 1)[1].split()[1]
        if ppid == me and name in cmdline:
            out.add(int(entry))
    return out


async def wait_for_text(path, text, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                if text in f.read():
                    return
        except OSError:
            pass
        await anyio.sleep(0.02)
    raise TimeoutError(f"{text!r} never appeared in {path}")


def texts(result):
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Driver:
    def __init__(self, tg):
        self.tg = tg
        self.sessions = {}
        # Per session, the resources the server said changed, and the log
        # messages it sent.
        self.heard = {}
        self.logged = {}

    async def open(self, cmd):
        """Each session lives in a task of its own, so that sessions can be
        closed in any order (anyio scopes must exit in the task and order
        they were entered)."""
        ready, close, done = anyio.Event(), anyio.Event(), anyio.Event()
        state = {}

        async def run():
            try:
                async with AsyncExitStack() as stack:
                    before = children_named("sightline")
                    if cmd.get("url"):
                        headers = {"Authorization": f"Bearer {cmd['token']}"}
                        read, write, _ = await stack.enter_async_context(
                            streamablehttp_client(cmd["url"], headers=headers)
                        )
                    else:
                        errlog = stack.enter_context(open(cmd["errlog"], "w"))
                        params = StdioServerParameters(
                            command=cmd["command"], args=cmd.get("args", []), env=cmd.get("env"), cwd=cmd.get("cwd")
                        )
                        read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                    # A client may name itself (`client`), as Claude Code does.
                    info = types.Implementation(name=cmd["client"], version="1") if cmd.get("client") else None
                    updated = state.setdefault("updated", {})

                    async def on_message(message):
                        # The resources the server said changed, each with
                        # an event a waiting `updated` command sets.
                        if isinstance(message, types.ServerNotification) and isinstance(
                            message.root, types.ResourceUpdatedNotification
                        ):
                            uri = str(message.root.params.uri)
                            updated.setdefault(uri, anyio.Event()).set()

                    logs = state.setdefault("logs", [])

                    async def on_log(params):
                        logs.append({"level": params.level, "data": params.data})

                    session = await stack.enter_async_context(
                        ClientSession(
                            read, write, client_info=info, message_handler=on_message, logging_callback=on_log
                        )
                    )
                    state["init"] = await session.initialize()
                    state["pids"] = children_named("sightline") - before
                    state["session"] = session
                    ready.set()
                    await close.wait()
            except Exception as e:
                state["error"] = e
            finally:
                ready.set()
                done.set()

        self.tg.start_soon(run)
        await ready.wait()
        if "error" in state:
            raise state["error"]
        self.sessions[cmd["session"]] = (state["session"], (close, done))
        self.heard[cmd["session"]] = state["updated"]
        self.logged[cmd["session"]] = state["logs"]
        init, pids = state["init"], state["pids"]
        return {
            "server": init.serverInfo.name,
            "protocol": init.protocolVersion,
            "tools": init.capabilities.tools is not None,
            "pid": pids.pop() if len(pids) == 1 else None,
        }

    async def list(self, cmd):
        session, _ = self.sessions[cmd["session"]]
        listed = await session.list_tools()
        tools = []
        for tool in listed.tools:
            # The input schema must itself be a valid JSON Schema.
            jsonschema.validators.validator_for(tool.inputSchema).check_schema(tool.inputSchema)
            tools.append(tool.model_dump(mode="json", exclude_none=True))
        return {"tools": tools}

    async def call(self, cmd):
        session, _ = self.sessions[cmd["session"]]
        progress = []

        async def on_progress(value, total, message):
            progress.append(message)

        try:
            result = await session.call_tool(
                cmd["tool"], cmd.get("args", {}), progress_callback=on_progress if cmd.get("progress") else None
            )
        except McpError as e:
            return {"protocol_error": {"code": e.error.code, "message": e.error.message}}
        # The SDK has checked the structured content against the tool's
        # output schema already (it raises when it does not match).
        return {
            "text": texts(result),
            "isError": bool(result.isError),
            "progress": progress,
            "structured": result.structuredContent,
        }

    async def together(self, cmd):
        results = [None] * len(cmd["calls"])
        t0 = anyio.current_time()

        async def one(i, call):
            await anyio.sleep(call.get("after_ms", 0) / 1000)
            started = anyio.current_time() - t0
            results[i] = await self.call(call)
            # When each call was sent and answered, from the first's start,
            # so that a test can tell which overlapped.
            results[i]["started_ms"] = round(started * 1000)
            results[i]["ended_ms"] = round((anyio.current_time() - t0) * 1000)

        async with anyio.create_task_group() as tg:
            for i, call in enumerate(cmd["calls"]):
                tg.start_soon(one, i, call)
        return {"results": results}

    async def cancel(self, cmd):
        """Starts a call, waits until `started` shows in `file`, sends
        notifications/cancelled for it, and waits until `cancelled` shows."""
        session, _ = self.sessions[cmd["session"]]
        request_id = session._request_id  # the id the SDK gives the next request
        scope = anyio.CancelScope()

        async def run():
            with scope:
                try:
                    await session.call_tool(cmd["tool"], cmd.get("args", {}))
                except Exception:
                    pass

        self.tg.start_soon(run)
        await wait_for_text(cmd["file"], cmd["started"])
        await session.send_notification(
            types.ClientNotification(
                types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=request_id, reason="test cancels it")
                )
            )
        )
        await wait_for_text(cmd["file"], cmd["cancelled"])
        scope.cancel()
        return {"cancelled": request_id}

    async def resources(self, cmd):
        session, _ = self.sessions[cmd["session"]]
        listed = await session.list_resources()
        templates = await session.list_resource_templates()
        return {
            "resources": [r.model_dump(mode="json", exclude_none=True) for r in listed.resources],
            "templates": [t.model_dump(mode="json", exclude_none=True) for t in templates.resourceTemplates],
        }

    async def read(self, cmd):
        session, _ = self.sessions[cmd["session"]]
        try:
            result = await session.read_resource(cmd["uri"])
        except McpError as e:
            return {"protocol_error": {"code": e.error.code, "message": e.error.message}}
        return {"text": "".join(c.text for c in result.contents if hasattr(c, "text"))}

    async def subscribe(self, cmd):
        session, _ = self.sessions[cmd["session"]]
        # Heard from now on: an earlier notification does not count.
        self.heard[cmd["session"]][cmd["uri"]] = anyio.Event()
        try:
            await session.subscribe_resource(cmd["uri"])
        except McpError as e:
            return {"protocol_error": {"code": e.error.code, "message": e.error.message}}
        return {"subscribed": cmd["uri"]}

    async def updated(self, cmd):
        event = self.heard[cmd["session"]].setdefault(cmd["uri"], anyio.Event())
        with anyio.move_on_after(cmd.get("seconds", 30)):
            await event.wait()
            self.heard[cmd["session"]][cmd["uri"]] = anyio.Event()
            return {"updated": cmd["uri"]}
        return {"timed_out": cmd["uri"]}

    async def logs(self, cmd):
        logs = self.logged[cmd["session"]]
        with anyio.move_on_after(cmd.get("seconds", 30)):
            while not any(cmd.get("contains", "") in str(m["data"]) for m in logs):
                await anyio.sleep(0.05)
        return {"logs": list(logs)}

    async def http(self, cmd):
        """One POST of `body` as JSON with `headers`; the status and body,
        whatever the status."""

        def post():
            request = urllib.request.Request(
                cmd["url"], data=json.dumps(cmd["body"]).encode(), method="POST", headers=cmd.get("headers", {})
            )
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            try:
                with opener.open(request, timeout=120) as r:
                    return {"status": r.status, "body": r.read().decode()}
            except urllib.error.HTTPError as e:
                return {"status": e.code, "body": e.read().decode()}

        return await anyio.to_thread.run_sync(post)

    async def close(self, cmd):
        _, (close, done) = self.sessions.pop(cmd["session"])
        close.set()
        await done.wait()
        return {"closed": cmd["session"]}


async def main():
    async with anyio.create_task_group() as tg:
        driver = Driver(tg)
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if not line:
                break
            cmd = json.loads(line)
            try:
                result = await getattr(driver, cmd["cmd"])(cmd)
            except Exception as e:  # reported to the test, which fails on it
                result = {"exception": f"{type(e).__name__}: {e}"}
            print(json.dumps(result), flush=True)
        for name in list(driver.sessions):
            await driver.close({"session": name})
        tg.cancel_scope.cancel()


anyio.run(main)
