import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimWorld } from "../../src/sim/world.ts";
import { createKeystore } from "../../src/wallet/auto.ts";
import { setupCheck } from "../../src/wallet/setup-check.ts";
import { ADDR_A, FAST, KEY_A, KEY_B, tempEnv } from "./helpers.ts";

const approvedAt = (tenths: number) => async () => tenths;
const unreachable = async () => {
  throw new Error("connect ECONNREFUSED 127.0.0.1:8900");
};

describe("setupCheck", () => {
  it("a complete setup passes: SDK, key, network, builder approved, data dir", async () => {
    const env = tempEnv({ HL_PRIVATE_KEY: KEY_A, HL_NETWORK: "testnet", ANTHROPIC_API_KEY: "sk-x" });
    const r = await setupCheck({ env, queryMaxBuilderFee: approvedAt(100) });
    expect(r.issues).toEqual([]);
    expect(r.passed).toBe(true);
    const text = r.ok.join("\n");
    expect(text).toContain("@nktkas/hyperliquid");
    expect(text).toContain(`HL_PRIVATE_KEY set (${ADDR_A})`);
    expect(text).toContain("Network: testnet");
    expect(text).toContain("Builder fee: 10 bps (0.1%)");
    expect(text).toContain("Builder fee approved on testnet");
    expect(text).toContain("LLM API key found (ANTHROPIC_API_KEY)");
    expect(text).toMatch(/Data dir: .* writable/);
    expect(JSON.stringify(r)).not.toContain(KEY_A.slice(2));
  });

  it("flags a missing approval with the command that fixes it", async () => {
    const r = await setupCheck({
      env: tempEnv({ HL_PRIVATE_KEY: KEY_A, HL_NETWORK: "testnet" }),
      queryMaxBuilderFee: approvedAt(10),
    });
    expect(r.passed).toBe(false);
    expect(r.issues[0]).toMatch(/not approved.*hl builder approve/);
  });

  it("no key: fine on paper (paper wallet), an issue on testnet/mainnet", async () => {
    const paper = await setupCheck({ env: tempEnv(), queryMaxBuilderFee: unreachable });
    expect(paper.passed).toBe(true);
    expect(paper.ok.join("\n")).toContain("paper wallet");
    const testnet = await setupCheck({ env: tempEnv(), network: "testnet", queryMaxBuilderFee: unreachable });
    expect(testnet.issues).toEqual([expect.stringContaining("No private key")]);
  });

  it("keystores: password source reported, missing password and ambiguity are issues", async () => {
    const env = tempEnv({ HL_NETWORK: "paper" });
    await createKeystore(KEY_A, "pw", { ...FAST, env });
    expect((await setupCheck({ env, queryMaxBuilderFee: approvedAt(100) })).issues).toEqual([
      expect.stringContaining("has no password"),
    ]);
    const withPw = await setupCheck({
      env: { ...env, HL_KEYSTORE_PASSWORD: "pw" },
      queryMaxBuilderFee: approvedAt(100),
    });
    expect(withPw.ok.join("\n")).toContain(
      `Keystore ${ADDR_A} (the only keystore), password from the environment`,
    );
    await createKeystore(KEY_B, "pw", { ...FAST, env });
    const two = await setupCheck({
      env: { ...env, HL_KEYSTORE_PASSWORD: "pw" },
      queryMaxBuilderFee: approvedAt(100),
    });
    expect(two.issues).toEqual([expect.stringContaining("2 keystores found and none selected")]);
  });

  it("an unreachable exchange is an issue on testnet but only a note on paper", async () => {
    const testnet = await setupCheck({
      env: tempEnv({ HL_PRIVATE_KEY: KEY_A }),
      network: "testnet",
      queryMaxBuilderFee: unreachable,
    });
    expect(testnet.issues).toEqual([expect.stringContaining("could not query testnet")]);
    const paper = await setupCheck({
      env: tempEnv({ HL_PRIVATE_KEY: KEY_A }),
      queryMaxBuilderFee: unreachable,
    });
    expect(paper.passed).toBe(true);
  });

  it("reports bad configuration instead of throwing", async () => {
    const r = await setupCheck({
      env: tempEnv({ HL_NETWORK: "moon", BUILDER_FEE_TENTHS_BPS: "500", HL_PRIVATE_KEY: "0x12" }),
      queryMaxBuilderFee: unreachable,
    });
    expect(r.passed).toBe(false);
    expect(r.issues.join("\n")).toContain("unknown network");
    expect(r.issues.join("\n")).toContain("BUILDER_FEE_TENTHS_BPS");
    expect(r.issues.join("\n")).toContain("HL_PRIVATE_KEY");
  });

  it("a data dir that cannot be created is an issue", async () => {
    const env = tempEnv();
    const file = join(env.HL_AGENT_HOME!, "..", "a-file");
    writeFileSync(file, "x");
    const r = await setupCheck({
      env: { ...env, DATA_DIR: join(file, "data") },
      queryMaxBuilderFee: unreachable,
    });
    expect(r.issues).toEqual([expect.stringContaining("not writable")]);
  });

  describe("against the sim world (default exchange query)", () => {
    let world: Awaited<ReturnType<typeof startSimWorld>>;
    beforeAll(async () => {
      world = await startSimWorld({ port: 0, houseMakers: false });
    });
    afterAll(async () => {
      await world?.close();
    });

    it("queries maxBuilderFee from the exchange", async () => {
      const r = await setupCheck({ env: tempEnv({ HL_PRIVATE_KEY: KEY_A, HL_API_URL: world.url }) });
      expect(r.issues).toEqual([expect.stringMatching(/Builder fee not approved on paper .* needs 0\.1%/)]);
    });
  });
});
