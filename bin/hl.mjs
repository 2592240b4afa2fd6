#!/usr/bin/env node
// The `hl` command. TypeScript sources run through tsx's loader, so a fresh `npm ci` is enough.
import { register } from "tsx/esm/api";

// Started by one of our supervisors (`hl up`, `hl agent serve`, the MCP server's jobs), a process has
// an IPC channel to its parent. When the channel closes the parent is gone, even if it was SIGKILLed
// and could not stop its children, so this process stops itself the way SIGTERM would (the command's
// handlers save state). Watched from the first line: a parent dying while the sources still load
// must not be missed. Without a channel (a shell, nohup) nothing is watched.
if (process.channel) {
  process.channel.unref(); // the channel must not keep a finished command alive
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}

register();
await import("../src/cli/main.ts");
