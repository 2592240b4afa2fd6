import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Dead code is deleted, and what one module alone uses is not exported. This finds, from the text of
 * the sources alone (no type checking, so it runs in a fraction of a second):
 * - an export of src/ that no module importing it names (delete it, or drop `export` if its own module
 *   uses it);
 * - an export only tests name while its own module never uses it: kept alive by its test alone;
 * - a re-export (`export { x } from`) that no module importing the re-exporting one names.
 * A name counts as used by a module that imports (or re-exports, or `import()`s) the exporting file
 * by a relative path and mentions the name anywhere in its text, so a coincidence of names can hide a
 * dead export. Entry points pass because their loader names them (src/cli/groups.ts imports each
 * command group and calls its `register`); an export reached only by a name built at run time would
 * need an entry below.
 */
const root = join(import.meta.dirname, "..");

/** Test-only exports that are not dead: hooks tests need to reach inside a running module. */
const TEST_HOOKS = new Set([
  "src/core/log-sink.ts:setLogSink", // tests capture the log lines a service writes
  "src/exchange/shared-reads.ts:forgetSharedReads", // a measured start must not reuse an earlier one's reads
  "src/services/mcp/cli-job.ts:runningJobCount", // a cancelled job must be seen gone
  "src/sim/venue/info.ts:infoTypes", // the conformance test compares the sim's /info types with the SDK's
  "src/sim/model/backfill.ts:backfill", // test histories are made the way the sim makes its past
  "src/sim/model/backfill.ts:allMinutes",
  "src/market/asset-ctx.ts:writeAssetCtxs", // tests lay down stores the recorder would have written
  "src/market/books.ts:writeBooks",
  "src/market/trades.ts:writeTrades",
  "src/market/candles.ts:candleSpecOf",
]);

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.endsWith(".d.ts") && !f.includes("fixtures/"))
    .map((f) => join(dir, f));
}

const DECLARED =
  /^export (?:declare )?(?:async )?(?:abstract )?(?:function\*?|class|const|let|var|type|interface|enum) ([A-Za-z_$][\w$]*)/gm;
const LISTED = /^export (?:type )?\{([^}]*)\}(?! from)/gm;
const REEXPORTED = /^export (?:type )?\{([^}]*)\} from/gm;
const SPECIFIER = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g;
const REEXPORT_ALL = /^export \* from "(\.{1,2}\/[^"]+)"/gm;

function listedNames(text: string, list: RegExp): string[] {
  return [...text.matchAll(list)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((spec) =>
        spec
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .replace(/^type\s+/, ""),
      )
      .filter((name) => name !== ""),
  );
}

function timesNamed(text: string, name: string): number {
  return text.match(new RegExp(`(?<![\\w$])${name.replaceAll("$", "\\$")}(?![\\w$])`, "g"))?.length ?? 0;
}

describe("dead exports", () => {
  it("every export of src/ is used by a module that imports it, and not by tests alone", () => {
    const files = [
      ...sources("src"),
      ...sources("test"),
      ...sources("bench"),
      ...sources("scripts"),
      ...sources("bin"),
    ];
    const text = new Map(files.map((f) => [f, readFileSync(join(root, f), "utf8")]));
    const importers = new Map<string, Set<string>>();
    const reexportsAll = new Map<string, string[]>(); // a module → the modules it re-exports wholesale
    for (const [file, body] of text) {
      for (const m of body.matchAll(SPECIFIER)) {
        const target = relative(root, resolve(root, dirname(file), m[1]!));
        if (!importers.has(target)) importers.set(target, new Set());
        importers.get(target)!.add(file);
      }
      for (const m of body.matchAll(REEXPORT_ALL)) {
        const target = relative(root, resolve(root, dirname(file), m[1]!));
        reexportsAll.set(target, [...(reexportsAll.get(target) ?? []), file]);
      }
    }
    /** Who imports `file`, also through modules that `export *` it. */
    const users = (file: string, seen = new Set<string>()): Set<string> => {
      const all = new Set(importers.get(file));
      for (const barrel of reexportsAll.get(file) ?? []) {
        if (seen.has(barrel)) continue;
        seen.add(barrel);
        for (const u of users(barrel, seen)) all.add(u);
      }
      return all;
    };
    const problems: string[] = [];
    for (const [file, body] of text) {
      if (!file.startsWith("src/")) continue;
      const using = [...users(file)].filter((u) => u !== file);
      for (const name of new Set(listedNames(body, REEXPORTED))) {
        if (!using.some((u) => timesNamed(text.get(u)!, name) > 0))
          problems.push(`${file}: ${name} is re-exported, and no module importing it from here names it`);
      }
      const declared = [...body.matchAll(DECLARED)].map((m) => m[1]!);
      for (const name of new Set([...declared, ...listedNames(body, LISTED)])) {
        const byCode = using.some((u) => !u.startsWith("test/") && timesNamed(text.get(u)!, name) > 0);
        if (byCode) continue;
        const byTests = using.some((u) => u.startsWith("test/") && timesNamed(text.get(u)!, name) > 0);
        const byItself = timesNamed(body, name) > 1;
        if (!byTests) problems.push(`${file}: ${name} ${byItself ? "needs no export" : "is used nowhere"}`);
        else if (!byItself && !TEST_HOOKS.has(`${file}:${name}`))
          problems.push(`${file}: ${name} is used by tests only`);
      }
    }
    expect(problems).toEqual([]);
  });
});
