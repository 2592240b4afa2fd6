import { describe, expect, it } from "vitest";
import { UserError } from "../../../src/core/errors.ts";
import { hostServices, parseHostedSpecs } from "../../../src/services/host/run.ts";

const quiet = { env: {}, log: () => {}, warn: () => {} };

describe("the services host", () => {
  it("refuses a missing or malformed list of services with one readable error", () => {
    expect(() => parseHostedSpecs(undefined)).toThrow(UserError);
    expect(() => parseHostedSpecs("{")).toThrow(/is not JSON/);
    expect(() => parseHostedSpecs("[]")).toThrow(/JSON array of \{name, args, env\}/);
    expect(() => parseHostedSpecs('[{"name":"x","args":["a"],"env":{"A":1}}]')).toThrow(/JSON array/);
    const ok = [{ name: "mcp", args: ["mcp", "serve"], env: { MCP_PORT: "1" } }];
    expect(parseHostedSpecs(JSON.stringify(ok))).toEqual(ok);
  });

  it("refuses a service that cannot share a process", async () => {
    await expect(hostServices([{ name: "sim", args: ["sim", "serve"], env: {} }], quiet)).rejects.toThrow(
      /"sim" cannot run in a shared process/,
    );
  });

  it("starts each service with its own options and closes the started ones when another fails", async () => {
    const lines: string[] = [];
    const ctx = { env: { MCP_API_TOKEN: "" }, log: (l: string) => lines.push(l), warn: () => {} };
    const failing = hostServices(
      [
        { name: "mcp", args: ["mcp", "serve", "--transport", "http", "--port", "0"], env: {} },
        { name: "points", args: ["points", "serve", "--port", "not-a-port"], env: {} },
      ],
      ctx,
    );
    await expect(failing).rejects.toThrow(/--port must be a port number, got "not-a-port"/);
    const started = lines.find((l) => l.startsWith("[mcp] MCP server (http) listening on "));
    expect(started).toBeDefined();
    const url = started!.replace(/^.* on /, "").replace(/\/mcp$/, "/health");
    await expect(fetch(url)).rejects.toThrow();
  });
});
