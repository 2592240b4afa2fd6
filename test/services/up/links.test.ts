import { describe, expect, it } from "vitest";
import { readAgentConfig } from "../../../src/services/agent/config.ts";

describe("HL_LINKS (dashboard links of the agent service)", () => {
  it("is a JSON array of {label, href}; anything else is a clear error", () => {
    expect(readAgentConfig({}).links).toEqual([]);
    expect(
      readAgentConfig({ HL_LINKS: '[{"label":"ISFR","href":"http://{host}:8200/isfr/"}]' }).links,
    ).toEqual([{ label: "ISFR", href: "http://{host}:8200/isfr/" }]);
    expect(() => readAgentConfig({ HL_LINKS: "not json" })).toThrow("HL_LINKS must be a JSON array");
    expect(() => readAgentConfig({ HL_LINKS: '[{"label":"x"}]' })).toThrow("HL_LINKS must be a JSON array");
  });
});
