#!/usr/bin/env node
// The `hl` command. It runs the compiled JavaScript in dist/ (built by `npm ci` through `prepare`, or
// `npm run build`). In a source checkout it runs the TypeScript sources through tsx instead when
// HL_FROM_SOURCE=1 or when a source file is newer than the build, so no
// process ever runs a stale build.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";

// Started by one of our supervisors (`hl up`, `hl agent serve`, the MCP server's jobs), a process has
// an IPC channel to its parent. When the channel closes the parent is gone, even if it was SIGKILLed
// and could not stop its children, so this process stops itself the way SIGTERM would (the command's
// handlers save state). An orphan must not outlive that stop for long (a hung request or a handle left
// open would keep it trading unsupervised): after HL_ORPHAN_GRACE_MS (default 10 s) it ends its whole
// process group, helpers included. Without a channel (a shell, nohup) nothing is watched.
// A parent that died before this line ran cannot be seen on the channel: Node reads the channel's end
// while it loads this file and then drops the channel, with no one listening yet. So the supervisor
// also names itself in HL_SUPERVISOR_PID: named, but with no channel left (or no longer our parent),
// it is gone, and this command does not start.
const supervisorPid = Number(process.env.HL_SUPERVISOR_PID) || undefined;
delete process.env.HL_SUPERVISOR_PID; // it names our parent, not our children's
if (supervisorPid !== undefined && (!process.channel || process.ppid !== supervisorPid)) {
  process.stderr.write(`supervisor (pid ${supervisorPid}) gone before this command started; not starting\n`);
  process.exit(1);
}
if (process.channel) {
  process.channel.unref(); // the channel must not keep a finished command alive
  process.once("disconnect", () => {
    const graceMs = Number(process.env.HL_ORPHAN_GRACE_MS) || 10_000;
    setTimeout(() => {
      process.stderr.write(`parent gone and still running after ${graceMs} ms; stopping now\n`);
      try {
        process.kill(-process.pid, "SIGKILL"); // our group, when we lead one (supervisors start us detached)
      } catch {
        // not a group leader
      }
      process.exit(1);
    }, graceMs).unref();
    process.kill(process.pid, "SIGTERM");
  });
}

const root = new URL("../", import.meta.url);
const dist = new URL("dist/", root);
const src = new URL("src/", root);
const stamp = new URL("BUILD_STAMP", dist);

/** The build's start time, or undefined when there is no complete build. */
function builtAt() {
  try {
    return Number(readFileSync(stamp, "utf8"));
  } catch {
    return undefined;
  }
}

/** A source file changed after the build started (only a checkout has src/; an image has not). */
function sourcesNewerThan(ms) {
  if (!existsSync(src)) return false;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > ms) return true;
  }
  return false;
}

if (process.env.HL_TRACE_MODULES) {
  // Debugging and tests: every module this process loads, as "<pid> <url>" lines in that file. ES
  // modules are seen by a loader hook; CommonJS ones (require) are listed from the cache at exit.
  const file = process.env.HL_TRACE_MODULES;
  const { createRequire, register } = await import("node:module");
  const { appendFileSync } = await import("node:fs");
  const { pathToFileURL } = await import("node:url");
  register("./trace-modules.mjs", import.meta.url, { data: { file } });
  process.on("exit", () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    appendFileSync(file, cjs.map((path) => `${process.pid} ${pathToFileURL(path).href}\n`).join(""));
  });
}

const built = builtAt();
const fromSource =
  process.env.HL_FROM_SOURCE === "1" || built === undefined || sourcesNewerThan(built);

if (fromSource) {
  if (!existsSync(src)) {
    process.stderr.write("error: the compiled code (dist/) is missing; run `npm run build`\n");
    process.exit(1);
  }
  const tsx = await import("tsx/esm/api").catch(() => undefined);
  if (!tsx) {
    process.stderr.write("error: dist/ is missing or older than src/, and tsx is not installed; run `npm run build`\n");
    process.exit(1);
  }
  tsx.register();
  await import(new URL("cli/main.ts", src).href);
} else if (isTopLevelHelp(process.argv.slice(2))) {
  // Rendered from the real command tree at build time: `hl --help` need not load every command.
  process.stdout.write(readFileSync(new URL("help.txt", dist), "utf8"));
} else {
  await import(new URL("cli/main.js", dist).href);
}

function isTopLevelHelp(args) {
  return args.length === 1 && (args[0] === "--help" || args[0] === "-h");
}
