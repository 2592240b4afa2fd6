import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig, withDslPreset } from "../../src/engine/run-config.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const run = promisify(execFile);

describe("run config files", () => {
  it("reads YAML and JSON: strategy, instrument, tick, params, risk", () => {
    const yaml =
      "strategy: simple_mm\ninstrument: BTC-PERP\ntick: 2\nparams:\n  spread_bps: 12\nrisk:\n  max_position_qty: 3\n";
    const want = {
      strategy: "simple_mm",
      instrument: "BTC-PERP",
      tick: 2,
      params: { spread_bps: 12 },
      risk: { max_position_qty: 3 },
    };
    expect(parseRunConfig(yaml, "run.yaml")).toEqual(want);
    expect(parseRunConfig(JSON.stringify(want), "run.json")).toEqual(want);
  });

  it("refuses what it cannot run, in one line naming the file and the field", () => {
    expect(() => parseRunConfig("strategy: [", "a.yaml")).toThrow(/^a\.yaml is not valid YAML/);
    expect(() => parseRunConfig("{", "a.json")).toThrow(/^a\.json is not valid JSON/);
    expect(() => parseRunConfig("instrument: ETH-PERP\n", "a.yaml")).toThrow(/^a\.yaml: strategy: /);
    expect(() => parseRunConfig("strategy: x\nparams:\n  a: wide\n", "a.yaml")).toThrow(
      /^a\.yaml: params\.a: /,
    );
    expect(() => parseRunConfig("strategy: x\nbogus: 1\n", "a.yaml")).toThrow(/bogus/);
    expect(() => parseRunConfig("strategy: x\ndsl:\n  preset: loose\n", "a.yaml")).toThrow(
      /^a\.yaml: Unknown DSL preset 'loose'/,
    );
    expect(() => parseRunConfig("strategy: x\ndsl:\n  retrace: 0.1\n", "a.yaml")).toThrow(
      /^a\.yaml: dsl\.retrace: not a DSL setting/,
    );
    expect(() => parseRunConfig("strategy: x\ndsl:\n  phase1_retrace: 2\n", "a.yaml")).toThrow(
      /^a\.yaml: invalid DSL config at phase1_retrace/,
    );
  });

  it("reads the example run config of docs/wolf.md as written", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../docs/wolf.md"), "utf8");
    const block = /```yaml\n# run\.yaml[^\n]*\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    expect(parseRunConfig(block!, "run.yaml")).toMatchObject({
      strategy: "aggressive_taker",
      dsl: { preset: "tight", overrides: { leverage: 10, phase1_retrace: 0.02, breach_interval_ms: 4000 } },
    });
  });

  it("--dsl-preset wins over the file's preset and keeps its overrides", () => {
    const file = { preset: "moderate", overrides: { leverage: 5 } };
    expect(withDslPreset(file, "tight")).toEqual({ dsl: { preset: "tight", overrides: { leverage: 5 } } });
    expect(withDslPreset(undefined, "tight")).toEqual({ dsl: { preset: "tight", overrides: {} } });
    expect(withDslPreset(file, undefined)).toEqual({ dsl: file });
    expect(withDslPreset(undefined, undefined)).toEqual({});
    expect(() => withDslPreset(undefined, "loose")).toThrow(/Unknown DSL preset 'loose'/);
  });

  it("reads a DSL trailing stop: a preset (default moderate) and overrides", () => {
    expect(parseRunConfig("strategy: x\ndsl:\n  preset: tight\n  leverage: 5\n", "a.yaml").dsl).toEqual({
      preset: "tight",
      overrides: { leverage: 5 },
    });
    expect(parseRunConfig('{"strategy":"x","dsl":{}}', "a.json").dsl).toEqual({
      preset: "moderate",
      overrides: {},
    });
  });
});

describe("hl run --config", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 4 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it("runs the strategy the file names, with its params; flags win over the file", {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-config-"));
    const file = join(dir, "run.yaml");
    writeFileSync(file, "strategy: simple_mm\ninstrument: ETH-PERP\ntick: 0.2\nparams:\n  spread_bps: 25\n");
    const env = {
      ...process.env,
      DATA_DIR: join(dir, "data"),
      HL_API_URL: world.url,
      HL_NETWORK: "paper",
      HL_PRIVATE_KEY: "",
    };
    const { stdout } = await run(
      process.execPath,
      [HL, "run", "--config", file, "--mock", "--max-ticks", "2", "-p", "base_size=0.2"],
      { env, timeout: 50_000 },
    );
    expect(stdout).toMatch(/Strategy: simple_mm .*spread_bps=25/);
    expect(stdout).toMatch(/base_size=0\.2/);
    const bad = await run(process.execPath, [HL, "run", "--mock"], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((bad as { code: number; stderr: string }).stderr.trim()).toBe(
      "error: name a strategy, or give a run config with --config FILE",
    );
  });
});
