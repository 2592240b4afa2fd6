import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadMigrations } from "../../src/db/migrate.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { freeUpPorts, until } from "../e2e/up-helpers.ts";

/**
 * No container engine here: the Dockerfile's steps run as a plain script in a clean copy. The build
 * stage's COPY and RUN steps run for real (its `npm ci` reuses this checkout's node_modules, hard-linked,
 * since the registry is out of reach, then runs the `prepare` build that `npm ci` would); the run stage
 * gets its files the way its COPY steps say, and its CMD must serve /health as its HEALTHCHECK asks.
 */
interface Step {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  steps: Step[];
}

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const WORKDIR = "/app";

function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (op === "FROM")
      stages.push({ name: /\bAS\s+(\S+)/i.exec(args!)?.[1] ?? `stage${stages.length}`, steps: [] });
    else stages.at(-1)!.steps.push({ op: op!, args: args! });
  }
  return stages;
}

const stages = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const final = stages.at(-1)!;
const stepsOf = (stage: Stage, op: string) => stage.steps.filter((s) => s.op === op).map((s) => s.args);
const tmp = mkdtempSync(join(tmpdir(), "hl-docker-"));
let sim: SimWorld | undefined;
let service: ChildProcess | undefined;

afterAll(async () => {
  if (service?.exitCode === null) service.kill("SIGKILL");
  await sim?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The stage's directory standing for its WORKDIR. */
const dirOf = (stage: string) => join(tmp, stage);

async function runStage(stage: Stage, env: Record<string, string>): Promise<void> {
  const dir = dirOf(stage.name);
  mkdirSync(dir, { recursive: true });
  for (const { op, args } of stage.steps) {
    if (op === "WORKDIR") expect(args).toBe(WORKDIR);
    if (op === "ENV") for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
    if (op === "COPY") {
      const from = /^--from=(\S+)\s+/.exec(args)?.[1];
      const paths = args.replace(/^--from=\S+\s+/, "").split(/\s+/);
      const dest = paths.pop()!;
      for (const path of paths) {
        const source = from ? join(dirOf(from), path.replace(`${WORKDIR}/`, "")) : join(ROOT, path);
        const target = dest.endsWith("/") ? join(dir, dest, path.split("/").at(-1)!) : join(dir, dest);
        mkdirSync(dirname(target), { recursive: true });
        // Hard links where the files come from the build stage: node_modules is large.
        // (Plain copies when /tmp is another file system than the build stage's.)
        await run("sh", [
          "-c",
          `cp ${from ? "-al" : "-a"} "$0" "$1" 2>/dev/null || { rm -rf "$1" && cp -a "$0" "$1"; }`,
          source,
          target,
        ]);
      }
    }
    if (op === "RUN" && stage !== final) {
      // `npm ci`: this checkout's packages (hard links: fast, and `npm prune` only unlinks them), then
      // the `prepare` build `npm ci` runs. The lockfile npm rewrites is a copy of its own.
      const script = args.replace(
        /npm ci\b[^&;]*/,
        `{ cp -al ${ROOT}/node_modules node_modules 2>/dev/null || { rm -rf node_modules && cp -a ${ROOT}/node_modules node_modules; }; } && cp --remove-destination ${ROOT}/node_modules/.package-lock.json node_modules/ && npm run prepare `,
      );
      await run("sh", ["-c", script], {
        cwd: dir,
        env: { ...process.env, npm_config_offline: "true", HL_FROM_SOURCE: "0" },
      });
    }
  }
}

describe("Dockerfile", () => {
  it("is multi-stage and runs unprivileged, with DATA_DIR a volume, a /health check and `hl agent serve`", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stepsOf(final, "USER")).toEqual(["node"]);
    expect(stepsOf(final, "VOLUME")).toEqual(["/data"]);
    expect(stepsOf(final, "ENV").join(" ")).toContain("DATA_DIR=/data");
    expect(stepsOf(final, "HEALTHCHECK").join(" ")).toContain("/health");
    expect(stepsOf(final, "CMD")).toEqual(['["hl", "agent", "serve"]']);
    // The run stage installs nothing: production packages come pruned from the build stage.
    expect(stepsOf(final, "RUN").join(" ")).not.toMatch(/npm|apt/);
    expect(stepsOf(stages[0]!, "RUN").join(" ")).toContain("npm prune --omit=dev");
  });

  it("builds in a clean copy and its image starts and answers the health check", {
    timeout: 120_000,
  }, async () => {
    const env: Record<string, string> = {};
    for (const stage of stages) await runStage(stage, env);
    const app = dirOf(final.name);
    // What the image holds: compiled code and production packages only.
    expect(existsSync(join(app, "dist/BUILD_STAMP"))).toBe(true);
    // The compiled migration runner finds the SQL migrations beside it.
    const migrations = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import("${app}/dist/db/migrate.js"); console.log(m.loadMigrations().map((x) => x.name).join(","));`,
      ],
      { encoding: "utf8" },
    );
    expect(migrations.stdout.trim()).toBe(
      loadMigrations()
        .map((m) => m.name)
        .join(","),
    );
    expect(existsSync(join(app, "src"))).toBe(false);
    for (const dev of ["typescript", "tsx", "vitest", "@biomejs/biome"])
      expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    for (const prod of ["pino", "better-sqlite3", "prom-client"])
      expect(existsSync(join(app, "node_modules", prod)), prod).toBe(true);

    // The CMD: `hl` is bin/hl.mjs (the RUN step links it onto the PATH).
    expect(stepsOf(final, "RUN").join(" ")).toContain(`ln -s ${WORKDIR}/bin/hl.mjs /usr/local/bin/hl`);
    // Needs the exchange's per-IP weight limit off: a whole container start and its checks within seconds spend more than
    // one IP's 1200 a minute. The per-address limit stays on.
    sim = await startSimWorld({ ipWeightLimit: false, seed: 5 });
    const { agent: port } = await freeUpPorts();
    const dataDir = join(tmp, "data");
    const trace = join(tmp, "modules.trace");
    const runEnv = {
      PATH: process.env.PATH ?? "",
      ...env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      HL_NETWORK: "paper",
      HL_API_URL: sim.url,
      HL_TRACE_MODULES: trace,
    };
    const [cmd, ...args] = JSON.parse(stepsOf(final, "CMD")[0]!) as string[];
    expect(cmd).toBe("hl");
    service = spawn(process.execPath, [join(app, "bin/hl.mjs"), ...args], {
      cwd: app,
      env: runEnv,
      stdio: "ignore",
    });
    const check = JSON.parse(stepsOf(final, "HEALTHCHECK")[0]!.replace(/^.*?CMD\s+/, "")) as string[];
    await until(
      "the HEALTHCHECK command to pass",
      async () =>
        spawnSync(check[0] === "node" ? process.execPath : check[0]!, check.slice(1), { env: runEnv })
          .status === 0,
      Date.now() + 30_000,
    );
    const exited = new Promise((r) => service!.once("exit", r));
    service.kill("SIGTERM");
    await exited;
    // It ran the compiled code.
    const loaded = readFileSync(trace, "utf8");
    expect(loaded).toContain(`${app}/dist/cli/main.js`);
    expect(loaded).not.toMatch(/\.ts\n/);
  });

  it("a checkout whose sources changed after the build never runs the stale build", {
    timeout: 30_000,
  }, () => {
    const build = dirOf(stages[0]!.name);
    const hl = join(build, "bin/hl.mjs");
    const env = { ...process.env, HL_FROM_SOURCE: "0" };
    const fresh = spawnSync(process.execPath, [hl, "--help"], { env, encoding: "utf8" });
    expect(fresh.stdout).toBe(readFileSync(join(build, "dist/help.txt"), "utf8"));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(build, "src/cli/main.ts"), later, later);
    // The build stage's packages are pruned to production ones: no tsx to run the sources with.
    const stale = spawnSync(process.execPath, [hl, "--help"], { env, encoding: "utf8" });
    expect(stale.status).toBe(1);
    expect(stale.stderr.trim()).toBe(
      "error: dist/ is missing or older than src/, and tsx is not installed; run `npm run build`",
    );
  });
});
