import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";
import { appendLines } from "../store/append.ts";

/** Append one JSON object as one line (one write call, so concurrent appenders do not interleave lines). */
export function appendJsonLine(path: string, value: unknown): void {
  appendLines(path, [JSON.stringify(value)]);
}

interface JsonLines<T> {
  records: T[];
  /** 1-based numbers of lines that were not valid JSON or did not match the schema. */
  badLines: number[];
}

/** Read a JSONL file through a schema; bad lines are reported, never fatal. A missing file is empty. */
export function readJsonLines<S extends z.ZodType>(path: string, schema: S): JsonLines<z.output<S>> {
  const out: JsonLines<z.output<S>> = { records: [], badLines: [] };
  if (!existsSync(path)) return out;
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]?.trim();
    if (!raw) continue;
    try {
      const parsed = schema.safeParse(JSON.parse(raw));
      if (parsed.success) out.records.push(parsed.data);
      else out.badLines.push(i + 1);
    } catch {
      out.badLines.push(i + 1);
    }
  }
  return out;
}
