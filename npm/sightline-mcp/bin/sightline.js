#!/usr/bin/env node
// Runs the sightline binary built for this platform. npm installs it from
// the one optional dependency whose `os` and `cpu` match (the way esbuild and
// Biome ship their binaries); this script only finds it and hands over its
// standard streams, so `npx -y sightline-mcp mcp` speaks MCP straight to the binary.
"use strict";

const { spawn } = require("node:child_process");

const PACKAGES = {
  "linux x64": "sightline-mcp-linux-x64",
  "linux arm64": "sightline-mcp-linux-arm64",
  "darwin x64": "sightline-mcp-darwin-x64",
  "darwin arm64": "sightline-mcp-darwin-arm64",
  "win32 x64": "sightline-mcp-win32-x64",
};

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

function binary() {
  const platform = `${process.platform} ${process.arch}`;
  const pkg = PACKAGES[platform];
  if (!pkg) {
    fail(`sightline has no npm build for ${platform}; install it with \`cargo install sightline-mcp\``);
  }
  const exe = process.platform === "win32" ? "sightline.exe" : "sightline";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`the package ${pkg}, which holds sightline's binary, is not installed; install sightline-mcp again without --omit=optional`);
  }
}

const program = binary();
const child = spawn(program, process.argv.slice(2), { stdio: "inherit" });
// A signal meant for sightline (the client stopping it) reaches it too.
const forward = (signal) => child.kill(signal);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, forward);
}
child.on("error", (e) => fail(`cannot run ${program}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
