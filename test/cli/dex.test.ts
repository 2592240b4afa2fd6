import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../src/cli/dex.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { KEY_A, KEY_B } from "../wallet/helpers.ts";

/**
 * `hl dex status|send|abstraction` in this process (commander + the real client) against a sim world
 * started here: what a user types, down to the exchange's own answers.
 */
describe("hl dex", () => {
  let world: SimWorld;
  let dataDir: string;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, houseMakers: false, historyDays: 0, liveCoins: [] });
    dataDir = mkdtempSync(join(tmpdir(), "hl-dex-cli-"));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await world?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Run `hl dex …` signed with `key`; stdout, or the error the command ends with. */
  async function hl(key: string, ...args: string[]): Promise<string> {
    vi.stubEnv("HL_API_URL", world.url);
    vi.stubEnv("HL_NETWORK", "");
    vi.stubEnv("HL_PRIVATE_KEY", key);
    vi.stubEnv("DATA_DIR", dataDir);
    const program = new Command("hl").exitOverride();
    register(program);
    const out: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await program.parseAsync(["node", "hl", "dex", ...args]);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    return out.join("");
  }

  async function client(key: string): Promise<HlClient> {
    return HlClient.create({ network: "paper", apiUrl: world.url, privateKey: key, env: {} });
  }

  it("status shows a new account's mode and each dex's USDC; send moves USDC to yex and back; more than yex may release is refused in the exchange's words", async () => {
    const before = JSON.parse(await hl(KEY_A, "status", "--json")) as {
      abstraction: string;
      dex_abstraction: boolean | null;
      dexes: { dex: string; collateral: string; withdrawable: string }[];
    };
    expect(before.abstraction).toBe("default");
    expect(before.dex_abstraction).toBeNull();
    expect(before.dexes.map((d) => d.dex)).toEqual(["main", "xyz", "yex"]);
    expect(before.dexes.map((d) => d.collateral)).toEqual(["USDC", "USDC", "USDC"]);
    expect(before.dexes.find((d) => d.dex === "yex")!.withdrawable).toBe("0");
    const main = before.dexes[0]!.withdrawable;

    const sent = JSON.parse(await hl(KEY_A, "send", "100.25", "--to", "yex", "--json")) as {
      from: string;
      to: string;
      withdrawable: Record<string, string>;
    };
    expect(sent).toMatchObject({ from: "main", to: "yex", amount: "100.25" });
    expect(sent.withdrawable.yex).toBe("100.25");
    const c = await client(KEY_A);
    try {
      expect((await c.clearinghouseState({ dex: "yex" })).withdrawable).toBe("100.25");
      expect(await c.userAbstraction()).toBe("default"); // moving USDC changes no mode
    } finally {
      await c.close();
    }

    await expect(hl(KEY_A, "send", "100.26", "--from", "yex")).rejects.toThrow(
      "the exchange refused the move: Insufficient balance for transfer.",
    );
    expect(await hl(KEY_A, "send", "100.25", "--from", "yex", "--to", "main")).toContain(
      "Moved 100.25 USDC from yex to main. Withdrawable now: yex 0, main",
    );
    await expect(hl(KEY_A, "send", "5", "--to", "foo")).rejects.toThrow(
      'unknown dex "foo": the HIP-3 dexes here are xyz, yex (the main one is "main")',
    );
    const table = await hl(KEY_A, "status");
    expect(table).toContain('userAbstraction "default", userDexAbstraction null');
    expect(table).toMatch(new RegExp(`^main +USDC +\\S+ +${main.replace(".", "\\.")} `, "m"));
    expect(table).toContain("hl dex send AMOUNT --to DEX");
  });

  it("abstraction on signs userDexAbstraction, which also takes an account the user put in standard mode; on again signs nothing", async () => {
    const c = await client(KEY_B);
    try {
      await c.clearinghouseState(); // the sim world opens the account on first sight
      // Standard mode chosen by the user: agentEnableDexAbstraction (a run's way) is refused here.
      await c.exchangeClient!.userSetAbstraction({ user: c.address!, abstraction: "disabled" });
      await expect(c.enableDexAbstraction()).rejects.toThrow(
        /only be enabled by an agent when it was never set/,
      );
      expect(await hl(KEY_B, "abstraction", "on")).toContain("Dex abstraction is on");
      expect(await c.userDexAbstraction()).toBe(true);
      expect(await c.userAbstraction()).toBe("dexAbstraction");
      expect(JSON.parse(await hl(KEY_B, "abstraction", "on", "--json"))).toMatchObject({
        dex_abstraction: true,
        signed: false,
      });
    } finally {
      await c.close();
    }
  });

  it("refuses bad input and an unconfirmed mainnet in one line, before any network call", async () => {
    // Unroutable: a refusal that tried the network would fail differently.
    vi.stubEnv("HL_API_URL", "http://127.0.0.1:9");
    const refusal = (...args: string[]) => {
      const program = new Command("hl").exitOverride();
      register(program);
      return program.parseAsync(["node", "hl", "dex", ...args]).then(
        () => "ran",
        (err: Error) => err.message,
      );
    };
    expect(await refusal("send", "0", "--to", "yex")).toBe(
      'amount must be a positive decimal number of USDC, got "0"',
    );
    expect(await refusal("send", "1e3", "--to", "yex")).toMatch(/positive decimal/);
    expect(await refusal("send", "5")).toMatch(/^say where: --to DEX/);
    expect(await refusal("send", "5", "--from", "yex", "--to", "YEX")).toBe(
      "--from and --to both name the yex dex: nothing to move",
    );
    expect(await refusal("send", "5", "--to", "yex", "--network", "mainnet")).toBe(
      "hl dex send on mainnet moves real USDC: add --yes to confirm",
    );
    expect(await refusal("abstraction", "on", "--network", "mainnet")).toBe(
      "hl dex abstraction on mainnet changes the real account's margin mode: add --yes to confirm",
    );
    expect(await refusal("abstraction", "off")).toMatch(/^only "hl dex abstraction on" is offered/);
  });
});
