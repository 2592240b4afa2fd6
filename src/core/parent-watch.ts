/**
 * A process started by one of our supervisors (`hl up`, `hl agent serve`, the MCP server's jobs)
 * gets an IPC channel to its parent. When that channel closes the parent is gone — even if it was
 * SIGKILLed and could not stop its children — so the process stops itself the way SIGTERM would
 * (its own handlers save state and stop its children in turn). A process started any other way has
 * no channel and is left alone, so `nohup hl … &` keeps running after its shell exits.
 */
export function stopWhenParentDies(): void {
  if (!process.channel) return;
  // The channel must not keep an otherwise finished command alive.
  process.channel.unref();
  process.once("disconnect", () => {
    process.kill(process.pid, "SIGTERM");
  });
}
