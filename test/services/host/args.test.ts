import { describe, expect, it } from "vitest";
import { serveOptions } from "../../../src/services/host/args.ts";

describe("serveOptions", () => {
  it("reads a serve command's flags the way the command line gives them", () => {
    expect(serveOptions(["feeds", "serve", "--port", "8100", "--proxy-only", "--network", "paper"])).toEqual({
      group: "feeds",
      opts: { port: "8100", proxyOnly: true, network: "paper" },
    });
    expect(serveOptions(["mcp", "serve", "--transport", "http"]).opts).toEqual({ transport: "http" });
  });

  it("refuses what is not a serve command", () => {
    expect(() => serveOptions(["feeds", "list"])).toThrow(/not a serve command/);
    expect(() => serveOptions(["feeds", "serve", "8100"])).toThrow(/unexpected argument "8100"/);
  });
});
