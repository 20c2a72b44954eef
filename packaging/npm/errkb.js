#!/usr/bin/env node
// The `errkb` command of the npm package: runs the errkb program of this
// platform's package (@errkb/<platform>-<arch>, an optional dependency that
// npm installs only where its "os", "cpu" and "libc" match), with the
// arguments, terminal and exit code passed through. The program finds its
// extension, ONNX Runtime and test model beside itself.
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

const PLATFORMS = {
  "linux-x64": "@errkb/linux-x64",
  "linux-arm64": "@errkb/linux-arm64",
  "darwin-x64": "@errkb/darwin-x64",
  "darwin-arm64": "@errkb/darwin-arm64",
};

function fail(message) {
  process.stderr.write(`errkb: ${message}\n`);
  process.exit(2);
}

function isMusl() {
  if (process.platform !== "linux") return false;
  const report = process.report && process.report.getReport();
  const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
  return Boolean(header) && !header.glibcVersionRuntime;
}

function program() {
  const key = `${process.platform}-${process.arch}`;
  const name = PLATFORMS[key];
  if (!name || isMusl()) {
    fail(`no build of errkb for ${key}${isMusl() ? " with musl libc" : ""} (there are: ` +
         `${Object.keys(PLATFORMS).join(", ")}${name ? ", with glibc" : ""}); build it from source ` +
         "(errkb's README, \"From source\")");
  }
  let root;
  try {
    root = path.dirname(require.resolve(`${name}/package.json`));
  } catch (e) {
    fail(`${name}, the package with errkb's program for ${key}, is not installed: npm leaves optional ` +
         "dependencies out with --omit=optional (or --no-optional); install errkb again without it");
  }
  return path.join(root, "errkb", "bin", "errkb");
}

const bin = program();
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) fail(`cannot run ${bin}: ${run.error.message}`);
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status === null ? 2 : run.status);
