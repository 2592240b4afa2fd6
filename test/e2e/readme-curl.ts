import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { UpPorts } from "./up-helpers.ts";

const run = promisify(execFile);
export const README = join(import.meta.dirname, "../../README.md");

/** The pages whose `curl` examples run against `hl up`: the front page and the services' reference pages. */
export const CURL_PAGES = [
  README,
  ...["agent-service", "leaderboard", "mcp", "feeds", "isfr", "points", "sim-world"].map((page) =>
    join(import.meta.dirname, `../../docs/${page}.md`),
  ),
];

/** Every `curl` line of the pages' shell blocks, in order. */
export function readmeCurls(markdown = CURL_PAGES.map((p) => readFileSync(p, "utf8")).join("\n")): string[] {
  const out: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split("\n")) if (line.startsWith("curl ")) out.push(line.trim());
  }
  return out;
}

/** The README documents the default ports; a test run of `hl up` uses free ones. */
export function retarget(cmd: string, p: UpPorts): string {
  const map: Record<number, number> = {
    8080: p.agent,
    8090: p.leaderboard,
    8000: p.mcp,
    8100: p.feeds,
    8101: p.feeds + 1,
    8102: p.feeds + 2,
    8103: p.feeds + 3,
    8104: p.feeds + 4,
    8200: p.isfr,
    8300: p.points,
    8900: p.sim,
  };
  return cmd.replace(/127\.0\.0\.1:(\d{4})\b/g, (m, port: string) => {
    const to = map[Number(port)];
    if (to === undefined) throw new Error(`README example uses an unknown port: ${m}`);
    return `127.0.0.1:${to}`;
  });
}

export interface CurlOutcome {
  cmd: string;
  status: number;
  body: string;
  exit: number;
}

/**
 * Run one README example as written (through sh), adding only `-w` to read the HTTP status. A
 * streaming example ends by its own `--max-time` (curl exit 28) after receiving its first event.
 */
export async function runCurl(cmd: string): Promise<CurlOutcome> {
  const withStatus = `${cmd} -w '\\n%{http_code}'`;
  const r = await run("sh", ["-c", withStatus], { timeout: 30_000 }).then(
    (ok) => ({ stdout: ok.stdout, exit: 0 }),
    (e: { stdout?: string; code?: number }) => ({ stdout: e.stdout ?? "", exit: e.code ?? 1 }),
  );
  const lines = r.stdout.trimEnd().split("\n");
  const status = Number(lines.pop());
  return { cmd, status, body: lines.join("\n"), exit: r.exit };
}
