// Drives `sightline mcp` with the official MCP TypeScript SDK, for the Rust
// tests: lists the tools (each with its output schema), calls
// lsp_references and lsp_diagnostics (the SDK's Client checks each result's
// structured content against the tool's output schema itself, and throws
// when it does not match), lists and reads the diagnostics resources, and
// subscribes to a file's diagnostics, then changes the file and waits for
// `notifications/resources/updated`. Prints one JSON object of what it saw.
//
// Usage: node ts_sdk_check.mjs SDK_DIR SIGHTLINE CWD FILE NEW_TEXT [ARGS...]
// (SDK_DIR: tools/node_modules/@modelcontextprotocol/sdk; the environment
// is passed on to `sightline mcp`), or, over Streamable HTTP,
// node ts_sdk_check.mjs SDK_DIR URL CWD FILE NEW_TEXT TOKEN.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdk, bin, cwd, file, newText, ...args] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(sdk, "dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ResourceUpdatedNotificationSchema } = await load("types.js");

const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");

const transport = bin.startsWith("http://")
  ? new StreamableHTTPClientTransport(new URL(bin), {
      requestInit: { headers: { Authorization: `Bearer ${args[0]}` } },
    })
  : new StdioClientTransport({
      command: bin,
      args: ["mcp", ...args],
      cwd,
      env: process.env,
      stderr: "ignore",
    });
const client = new Client({ name: "ts-sdk-check", version: "1" });
await client.connect(transport);
const seen = {};
try {
  const { tools } = await client.listTools();
  seen.tools = tools.map((t) => t.name);
  seen.every_tool_has_an_output_schema = tools.every((t) => t.outputSchema?.type === "object");
  const refs = await client.callTool({
    name: "lsp_references",
    arguments: { file, line: 1, symbol: "total" },
  });
  seen.references = { text: refs.content[0].text, structured: refs.structuredContent };
  const diags = await client.callTool({ name: "lsp_diagnostics", arguments: { file } });
  seen.diagnostics = { text: diags.content[0].text, structured: diags.structuredContent };
  const { resourceTemplates } = await client.listResourceTemplates();
  seen.templates = resourceTemplates.map((t) => t.uriTemplate);
  const uri = `sightline://diagnostics${file}`;
  const read = await client.readResource({ uri });
  seen.read = read.contents[0].text;
  const updated = new Promise((resolve) => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
  });
  await client.subscribeResource({ uri });
  writeFileSync(file, newText);
  // A ceiling on the wait for the notification, cleared once it came.
  let timer;
  seen.updated = await Promise.race([
    updated,
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), 60_000);
    }),
  ]);
  clearTimeout(timer);
  seen.read_after = (await client.readResource({ uri })).contents[0].text;
} catch (e) {
  seen.error = String(e?.stack ?? e);
}
await client.close();
process.stdout.write(JSON.stringify(seen) + "\n");
