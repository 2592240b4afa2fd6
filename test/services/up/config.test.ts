import { createServer } from "node:net";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { register } from "../../../src/cli/up.ts";
import { UserError } from "../../../src/core/errors.ts";
import { portClaims, upConfig } from "../../../src/services/up/config.ts";
import { checkPorts, freeUpPorts, upPortFlags } from "../../../src/services/up/ports.ts";

describe("hl up settings", () => {
  it("defaults to the platform's ports; flags beat env", () => {
    const cfg = upConfig({}, {});
    expect(cfg.ports).toEqual({
      sim: 8900,
      agent: 8080,
      leaderboard: 8090,
      mcp: 8000,
      feeds: 8100,
      isfr: 8200,
      points: 8300,
    });
    const moved = upConfig({ agentPort: "9080" }, { PORT: "7080", ISFR_PORT: "7200", SIM_PORT: "7900" });
    expect(moved.ports.agent).toBe(9080);
    expect(moved.ports.isfr).toBe(7200);
    expect(moved.ports.sim).toBe(7900);
    expect(moved.speed).toBe(1);
    expect(moved.wolfTick).toBe(5);
  });

  it("names the flag or variable of a bad value", () => {
    expect(() => upConfig({ mcpPort: "x" }, {})).toThrow(
      '--mcp-port must be a port number (1-65535), got "x"',
    );
    expect(() => upConfig({}, { POINTS_PORT: "0" })).toThrow(UserError);
    expect(() => upConfig({ speed: "0" }, {})).toThrow("--speed must be a number above 0");
  });

  it("claims the four feed origins after the feeds proxy", () => {
    const claims = portClaims(upConfig({}, {}).ports).filter((c) => c.key === "feeds");
    expect(claims.map((c) => c.port)).toEqual([8100, 8101, 8102, 8103, 8104]);
  });
});

describe("port check before start", () => {
  it("a taken port is one line naming the port and the flag to change it", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const taken = (server.address() as { port: number }).port;
    try {
      // Free ports for the others (the defaults may be in use: `npm start` running on this machine).
      const ports = { ...(await freeUpPorts("127.0.0.1")), isfr: taken };
      await expect(checkPorts(ports, "127.0.0.1")).rejects.toThrow(
        `port ${taken} (ISFR index) is already in use; choose another with --isfr-port (or ISFR_PORT)`,
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("two services on one port are refused, feed origins included", async () => {
    const ports = { ...upConfig({}, {}).ports, points: 8102 };
    await expect(checkPorts(ports, "127.0.0.1")).rejects.toThrow(
      "port 8102 is wanted by both the points API and the hypeswp feed (feeds port + 2); choose another with --feeds-port (or FEEDS_PORT)",
    );
  });

  it("upPortFlags gives hl up's own flags: parsed by the real command they yield the same ports", async () => {
    const ports = await freeUpPorts("127.0.0.1");
    expect(new Set(portClaims(ports).map((c) => c.port)).size).toBe(11);
    const program = new Command().exitOverride();
    register(program);
    let parsed: Record<string, string> = {};
    program.commands
      .find((c) => c.name() === "up")!
      .action((opts: Record<string, string>) => {
        parsed = opts;
      });
    await program.parseAsync(["up", ...upPortFlags(ports)], { from: "user" });
    expect(upConfig(parsed, {}).ports).toEqual(ports);
    // The preferred set is kept when every one of its ports is free.
    expect(await freeUpPorts("127.0.0.1", ports)).toBe(ports);
  });
});
