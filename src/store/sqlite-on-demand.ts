import { createRequire } from "node:module";
import type Database from "better-sqlite3";

/**
 * better-sqlite3, loaded on the first call: a process that may never open a database (the agent
 * service in WOLF mode) does not carry the library's modules (about 1 MB at rest).
 */
export function sqliteOnDemand(): typeof Database {
  return createRequire(import.meta.url)("better-sqlite3") as typeof Database;
}
