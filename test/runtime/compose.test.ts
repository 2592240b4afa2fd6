import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { portClaims, upConfig } from "../../src/services/up/config.ts";
import { plan } from "../../src/services/up/plan.ts";
import { serviceTable } from "../../src/services/up/table.ts";

/** compose.yaml runs what `hl up` runs: the same children, commands, ports and health checks. */
interface ComposeService {
  command: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
}

const ROOT = join(import.meta.dirname, "../..");
const compose = parse(readFileSync(join(ROOT, "compose.yaml"), "utf8"), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const cfg = upConfig({}, {});
const children = plan(cfg, {});

/** `hl up` binds 127.0.0.1; a container binds every interface. */
function containerArgs(args: string[]): string[] {
  return args.map((a, i) => (args[i - 1] === "--host" ? "0.0.0.0" : a));
}

describe("compose.yaml", () => {
  it("has one service per child of `hl up`, each named as `hl up` prints it", () => {
    const table = serviceTable(children.map((spec) => ({ spec, logPath: "" })));
    const printed = table.split("\n").map((row) => row.trim().split(/\s+/)[0]);
    expect(Object.keys(compose.services).sort()).toEqual([...printed].sort());
  });

  it("runs each child with the command `hl up` gives it", () => {
    for (const spec of children) {
      expect(compose.services[spec.name]?.command, spec.name).toEqual(["hl", ...containerArgs(spec.args)]);
    }
  });

  it("publishes every port `hl up` binds and prints", () => {
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    const claimed = portClaims(cfg.ports).map((c) => `${c.port}:${c.port}`);
    expect([...published].sort()).toEqual([...claimed].sort());
    for (const spec of children.filter((c) => c.url)) {
      const port = new URL(spec.url!).port;
      expect(compose.services[spec.name]?.ports, spec.name).toContain(`${port}:${port}`);
    }
  });

  it("health-checks every served child on the URL `hl up` waits for", () => {
    for (const spec of children) {
      const check = compose.services[spec.name]?.healthcheck;
      if (!spec.healthUrl) {
        expect(check?.disable, spec.name).toBe(true);
        continue;
      }
      const url = new URL(spec.healthUrl);
      expect(check?.test?.join(" "), spec.name).toContain(`http://127.0.0.1:${url.port}${url.pathname}`);
    }
  });

  it("keeps each service's files in its own named volume, on the paper network of the sim service", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.volumes, name).toEqual([`${name}-data:/data`]);
      expect(Object.keys(compose.volumes)).toContain(`${name}-data`);
      expect(service.environment?.DATA_DIR, name).toBe("/data");
      expect(service.environment?.HL_NETWORK, name).toBe("paper");
      if (name !== "sim") expect(service.environment?.HL_API_URL, name).toBe("http://sim:8900");
    }
  });
});
