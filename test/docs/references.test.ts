import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { GROUPS } from "../../src/cli/groups.ts";

/**
 * What the reference pages cite must exist: a file of the repository named in backticks, a test named by
 * its title, a page or a heading linked to. A page that cites a test renamed or deleted tells the reader
 * something is shown that is not.
 */
const root = join(import.meta.dirname, "../..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Files of another repository that a page names (docs/http-stack.md: the tool run from its own commit). */
const elsewhere = new Set(["scripts/entrypoint.py"]);

/** Each `path` in backticks under one of the repository's own top folders, `{a,b}` expanded. */
function citedPaths(text: string): string[] {
  return [...text.matchAll(/`((?:src|test|bench|scripts|docs|deploy)\/[^`\s*]+?)`/g)]
    .map((m) => m[1]!.replace(/[:#].*$/, ""))
    .filter((p) => !p.includes("NNNN") && !elsewhere.has(p))
    .flatMap((p) => {
      const braces = /\{([^}]*)\}/.exec(p);
      return braces ? braces[1]!.split(",").map((alt) => p.replace(braces[0], alt)) : [p];
    });
}

/** The titles a test file gives its tests and groups, each split at its template's `${…}` (which match anything). */
function testTitles(source: string): string[][] {
  const literal = String.raw`"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\`(?:\\.|[^\`\\])*\``;
  const call = new RegExp(
    String.raw`\b(?:it|test|describe|bench)(?:\.\w+)*(?:\([^()]*\))?\(\s*((?:${literal})(?:\s*\+\s*(?:${literal}))*)`,
    "g",
  );
  return [...source.matchAll(call)].map((m) => {
    const parts = [...m[1]!.matchAll(new RegExp(literal, "g"))].map((p) => p[0].slice(1, -1));
    return normalise(parts.join("").replace(/\\(.)/g, "$1")).split(/\$\{[^}]*\}/);
  });
}

/** Whether `text` is the whole of a title split at its wildcards, or (`start`) the start of one. */
function matches(text: string, segments: string[], start: boolean): boolean {
  const [first, ...rest] = segments as [string, ...string[]];
  if (rest.length === 0) return start ? first.startsWith(text) : first === text;
  if (start && first.startsWith(text)) return true;
  if (!text.startsWith(first)) return false;
  const tail = text.slice(first.length);
  for (let k = 0; k <= tail.length; k++) if (matches(tail.slice(k), rest, start)) return true;
  return false;
}

const normalise = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * Each quoted title that follows a test file's citation in the same paragraph or table cell, up to the next
 * citation: `test/x.test.ts` ("a title…", "another…"), and past the parenthesis a title ending in "…" (the
 * start of one).
 */
function citedTitles(text: string): { file: string; title: string }[] {
  const found: { file: string; title: string }[] = [];
  for (const block of text.split(/\n\s*\n|\|/)) {
    const flat = normalise(block);
    const cites = [...flat.matchAll(/`(test\/[^`]+\.test\.ts)`/g)];
    cites.forEach((cite, i) => {
      const end = cites[i + 1]?.index ?? flat.length;
      const after = flat.slice(cite.index + cite[0].length, end).replace(/`[^`]*`/g, "");
      // Up to the parenthesis that closes the one the citation opened, if any.
      let depth = 0;
      let stop = after.length;
      for (let k = 0; k < after.length; k++) {
        if (after[k] === "(") depth++;
        if (after[k] === ")" && --depth < 0) {
          stop = k;
          break;
        }
      }
      // Inside it any quoted text; past it, up to the next citation, a title cut short ("…").
      for (const q of after.matchAll(/"([^"]{6,})"/g))
        if (q.index < stop || q[1]!.endsWith("…")) found.push({ file: cite[1]!, title: q[1]! });
    });
  }
  return found;
}

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const h = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe("the documentation's references", () => {
  it("every file a page names in backticks exists", () => {
    const missing = pages.flatMap((page) =>
      citedPaths(read(page))
        .filter((p) => !existsSync(join(root, p)))
        .map((p) => `${page}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it("every quoted test title is the start of a test's or a group's title in the file cited", () => {
    const titles = new Map<string, string[][]>();
    const unknown: string[] = [];
    for (const page of pages)
      for (const { file, title } of citedTitles(read(page))) {
        if (!existsSync(join(root, file))) continue; // the first check names it
        if (!titles.has(file)) titles.set(file, testTitles(read(file)));
        const wanted = normalise(title.replace(/(…|\.\.\.)$/, ""));
        const start = /(…|\.\.\.)$/.test(title);
        const ok = titles.get(file)!.some((segments) => matches(wanted, segments, start));
        if (!ok) unknown.push(`${page}: ${file} "${title}"`);
      }
    expect(unknown).toEqual([]);
  });

  it("every bench a page runs (`npm run bench -- NAME`) is a bench file", () => {
    const missing = pages.flatMap((page) =>
      [...read(page).matchAll(/npm run bench -- ([a-z0-9-]+)/g)]
        .map((m) => m[1]!)
        .filter((name) => !existsSync(join(root, "bench", `${name}.bench.ts`)))
        .map((name) => `${page}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("every test named in docs/exchange-rules.md's test column is a test file", () => {
    const files = new Set(
      readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => f.replace(/^.*\//, "").replace(/\.test\.ts$/, "")),
    );
    const missing: string[] = [];
    let columns = 0;
    for (const line of read("docs/exchange-rules.md").split("\n")) {
      const cells = line.startsWith("|")
        ? line
            .slice(1, -1)
            .split("|")
            .map((c) => c.trim())
        : [];
      if (cells.at(-1) === "test") columns = cells.length;
      else if (cells.length === 0) columns = 0;
      else if (columns > 0 && cells.length === columns && !cells[0]!.startsWith("---"))
        for (const name of cells
          .at(-1)!
          .split(/[,;]\s*/)
          .map((n) => n.trim().split(" ")[0]!))
          if (name !== "" && name !== "—" && !files.has(name)) missing.push(name);
    }
    expect(missing).toEqual([]);
  });

  it("every `hl` command a page shows exists, with flags the CLI defines", () => {
    const topLevel = new Set(GROUPS.flatMap((g) => g.commands));
    const cli = readdirSync(join(root, "src/cli"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => read(`src/cli/${f}`))
      .join("\n");
    const defined = new Set([
      "--help",
      "--version",
      ...[...cli.matchAll(/["'`][^"'`\n]*?(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!),
      ...[...cli.matchAll(/(--[a-z][a-z0-9-]*) </g)].map((m) => m[1]!),
    ]);
    const unknown: string[] = [];
    for (const page of pages) {
      const text = read(page);
      const commands = [
        ...[...text.matchAll(/`(hl [^`]+)`/g)].map((m) => m[1]!),
        ...[...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) =>
          m[1]!.split("\n").filter((l) => /^(\$ )?(npx )?hl /.test(l.trim())),
        ),
      ];
      for (const command of commands) {
        const word = /hl ([a-z][a-z-]*)/.exec(command)?.[1];
        if (word !== undefined && !topLevel.has(word))
          unknown.push(`${page}: hl ${word} in ${command.trim()}`);
        for (const m of command.replace(/#.*$/, "").matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g))
          if (!defined.has(m[1]!)) unknown.push(`${page}: ${m[1]} in ${command.trim()}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it("every variable docs/environment.md lists is read by the code", () => {
    const code = ["src", "bin"]
      .flatMap((dir) =>
        readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
          .filter((f) => /\.(ts|mjs)$/.test(f))
          .map((f) => read(`${dir}/${f}`)),
      )
      .join("\n");
    const names = new Set(
      [
        ...read("docs/environment.md").matchAll(
          /`([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|PORT|HOST|STRATEGY|INSTRUMENT)`/g,
        ),
      ].map((m) => m[1]!),
    );
    expect(names.size).toBeGreaterThan(50);
    expect([...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(code))).toEqual([]);
  });

  it("every relative link leads to a file, and its #anchor to a heading there", () => {
    const broken: string[] = [];
    for (const page of pages)
      for (const m of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? page : relative(root, join(root, dirname(page), path));
        if (!existsSync(join(root, file))) broken.push(`${page}: ${target}`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchors(read(file)).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    expect(broken).toEqual([]);
  });
});
