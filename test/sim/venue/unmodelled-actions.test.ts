import { ExchangeClient } from "@nktkas/hyperliquid";
import { describe, expect, it } from "vitest";
import { ALICE, testVenue } from "./helpers.ts";

/** The exchange actions the sim world applies (docs/paper-parity.md, "Exchange actions"). */
const MODELLED = [
  "agentEnableDexAbstraction",
  // agentSetAbstraction and userSetAbstraction: their standard and dex-abstraction modes (unified
  // accounts and portfolio margin are refused as not modelled: test/sim/venue/dex-abstraction.test.ts).
  "agentSetAbstraction",
  "approveAgent",
  "approveBuilderFee",
  "batchModify",
  "cancel",
  "cancelByCloid",
  "modify",
  "noop",
  "order",
  "registerReferrer",
  "reserveRequestWeight",
  "scheduleCancel",
  "sendAsset",
  "setReferrer",
  "updateIsolatedMargin",
  "updateLeverage",
  "usdClassTransfer",
  "usdSend",
  "userDexAbstraction",
  "userSetAbstraction",
  "withdraw3",
];

/** The SDK's method name is the action's type, but for the two validator actions. */
const WIRE_TYPE: Record<string, string> = {
  cSignerAction: "CSignerAction",
  cValidatorAction: "CValidatorAction",
};

const sdkActionTypes = Object.getOwnPropertyNames(ExchangeClient.prototype)
  .filter((name) => name !== "constructor")
  .map((name) => WIRE_TYPE[name] ?? name);

describe("exchange actions the sim world does not model", () => {
  it("covers every action of the SDK: each is either applied or refused as not modelled", () => {
    expect(sdkActionTypes.length).toBe(51);
    for (const type of MODELLED) expect(sdkActionTypes).toContain(type);
  });

  it("refuses each one it does not model, saying so, and changes nothing", () => {
    const t = testVenue({ balance: "1000" });
    const before = t.state(ALICE);
    const unmodelled = [...sdkActionTypes.filter((type) => !MODELLED.includes(type)), "multiSig"];
    expect(unmodelled.length).toBe(30);
    for (const type of unmodelled)
      expect(t.ex(ALICE, { type }), type).toEqual({
        status: "err",
        response: `${type} is not modelled by the sim world.`,
      });
    expect(t.state(ALICE)).toEqual(before);
  });

  it("still answers a type no client sends with its own text", () => {
    const t = testVenue();
    expect(t.ex(ALICE, { type: "frobnicate" })).toEqual({
      status: "err",
      response: "Unsupported action type: frobnicate",
    });
  });
});
