import { chmodSync, existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../store/atomic.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./keystore-store.ts";

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/;

function unquote(raw: string): string {
  const v = raw.trim();
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) {
    return v.slice(1, -1);
  }
  return v;
}

/** Read `KEY=value` lines (optional `export`, optional quotes, `#` comments); a missing file is empty. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim().startsWith("#")) continue;
    const m = ASSIGNMENT.exec(line);
    if (m?.[1]) out[m[1]] = unquote(m[2] ?? "");
  }
  return out;
}

/** Values are written bare; one that a shell or this reader would misread is refused. */
function checkValue(key: string, value: string): void {
  if (/[\n\r]/.test(value) || /^\s|\s$/.test(value) || /^["']/.test(value)) {
    throw new Error(`refusing to write ${key}: value contains newlines, edge whitespace or a leading quote`);
  }
}

/**
 * Set keys in an env file without touching its other lines: existing assignments are replaced in
 * place, new ones appended. Written atomically with mode 0600 in a 0700 directory.
 */
export function mergeEnvFile(path: string, updates: Record<string, string>): void {
  for (const [k, v] of Object.entries(updates)) checkValue(k, v);
  const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const written = new Set<string>();
  const merged: string[] = [];
  for (const line of lines) {
    const key = line.trim().startsWith("#") ? undefined : ASSIGNMENT.exec(line)?.[1];
    if (key === undefined || !(key in updates)) merged.push(line);
    else if (!written.has(key)) {
      // first assignment replaced in place; later duplicates dropped so none can shadow it
      merged.push(`${key}=${updates[key]}`);
      written.add(key);
    }
  }
  for (const [k, v] of Object.entries(updates)) if (!written.has(k)) merged.push(`${k}=${v}`);
  ensurePrivateDir(dirname(path));
  writeFileAtomic(path, `${merged.join("\n")}\n`, PRIVATE_FILE_MODE);
  chmodSync(path, PRIVATE_FILE_MODE);
}
