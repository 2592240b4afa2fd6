import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { DEFAULT_PORTS } from "../../src/config/defaults.ts";
import type { UpPorts } from "../../src/services/up/config.ts";
import { freeUpPorts, upPortFlags } from "../../src/services/up/ports.ts";

/** `npm start`'s process (`node bin/hl.mjs up`) started as a new user would, plus what watches it. */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
export const CHROMIUM = "/usr/bin/chromium";

/** The default ports when all are free (what a new user gets), otherwise eleven free ones in a row. */
export async function choosePorts(forceFree = false): Promise<{ ports: UpPorts; defaults: boolean }> {
  const ports = await freeUpPorts("127.0.0.1", forceFree ? undefined : DEFAULT_PORTS);
  return { ports, defaults: ports === DEFAULT_PORTS };
}

/** A new user's environment: nothing pointing hl elsewhere, no key. */
function newUserEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (/^(HL_|WOLF_|RUN_MODE$|STRATEGY$|INSTRUMENT$|DATA_DIR$|PORT$|[A-Z]+_PORT$|DATABASE_URL$)/.test(k)) delete env[k];
  return { ...env, ...extra };
}

/** Alerts the agents send, received on a loopback webhook (HL_ALERT_WEBHOOK). */
export class AlertInbox {
  private pending: string[] = [];
  readonly all: { at_ms: number; text: string }[] = [];
  private constructor(private readonly server: Server) {}

  static async open(): Promise<AlertInbox> {
    const server = createServer();
    const inbox = new AlertInbox(server);
    server.on("request", (req, res) => {
      let body = "";
      req.on("data", (b: Buffer) => {
        body += b.toString();
      });
      req.on("end", () => {
        let text = body;
        try {
          const j = JSON.parse(body) as { text?: string };
          if (typeof j.text === "string") text = j.text;
        } catch {
          // not JSON: keep the raw body
        }
        inbox.pending.push(text);
        inbox.all.push({ at_ms: Date.now(), text });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return inbox;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/alerts`;
  }

  /** The alerts received since the last call. */
  take(): string[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

export interface Started {
  child: ChildProcess;
  running: () => boolean;
  output: () => string;
  exited: Promise<number | null>;
}

export function startUp(
  dataDir: string,
  ports: UpPorts,
  env: Record<string, string>,
  extraArgs: string[] = [],
): Started {
  const child = spawn(process.execPath, [HL, "up", "--data-dir", dataDir, ...upPortFlags(ports), ...extraArgs], {
    env: newUserEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      running = false;
      resolve(code);
    }),
  );
  return { child, running: () => running, output: () => out, exited };
}

function descendants(pid: number): number[] {
  const text = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const kids = new Map<number, number[]>();
  for (const line of text.trim().split("\n")) {
    const [c, p] = line.trim().split(/\s+/).map(Number);
    if (c === undefined || p === undefined) continue;
    kids.set(p, [...(kids.get(p) ?? []), c]);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0)
    for (const c of kids.get(stack.pop() as number) ?? []) {
      out.push(c);
      stack.push(c);
    }
  return out;
}

/** Ctrl-C, as a user stops it; the tree is killed only if it has not exited after `graceMs`. */
export async function stopUp(
  up: Started,
  graceMs = 60_000,
): Promise<{ code: number | null; ms: number; killed: boolean }> {
  const t0 = Date.now();
  if (!up.running()) return { code: await up.exited, ms: 0, killed: false };
  const pid = up.child.pid as number;
  const tree = descendants(pid);
  up.child.kill("SIGINT");
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    for (const p of [pid, ...tree])
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // already gone
      }
  }, graceMs);
  const code = await up.exited;
  clearTimeout(timer);
  return { code, ms: Date.now() - t0, killed };
}

/** A headless chromium on the dashboard, or null when chromium is not installed. */
export async function openDashboard(url: string): Promise<{ browser: Browser; page: Page } | null> {
  if (!existsSync(CHROMIUM)) return null;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url, { waitUntil: "load" });
  return { browser, page };
}
