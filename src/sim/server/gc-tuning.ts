import { setFlagsFromString } from "node:v8";

/**
 * V8 settings of a process that serves the sim world (`hl sim serve`). Parallel scavenging hands
 * part of every young-generation collection to helper threads and makes the main thread wait for
 * them. On a small machine those helpers compete for the cores with the sim's own clients; a helper
 * that is not scheduled at once stalls every request in flight for a time slice. Under load the sim's
 * collections took about a third less pause time in all and half the longest pause with the main
 * thread scavenging alone: what little survives a collection here is quick to copy.
 */
export const SIM_SERVER_V8_FLAGS: readonly string[] = ["--no-parallel-scavenge"];

/** Apply SIM_SERVER_V8_FLAGS to this process (V8 reads them at each collection). */
export function tuneSimServerGc(): void {
  for (const flag of SIM_SERVER_V8_FLAGS) setFlagsFromString(flag);
}
