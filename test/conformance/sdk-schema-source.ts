import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Where the cached JSON Schemas (test/fixtures/sdk-schemas.json) come from: every response type of
 * @nktkas/hyperliquid's /info and /exchange methods (`XResponse`) and every subscription event
 * (`XEvent`), as the SDK ships them in TypeScript source.
 */
export const SDK_ROOT = join(import.meta.dirname, "../../node_modules/@nktkas/hyperliquid");
export const SCHEMA_CACHE = join(import.meta.dirname, "../fixtures/sdk-schemas.json");
export const GROUPS = [
  { group: "info", dir: "src/api/info/_methods", suffix: "Response" },
  { group: "exchange", dir: "src/api/exchange/_methods", suffix: "Response" },
  { group: "subscription", dir: "src/api/subscription/_methods", suffix: "Event" },
] as const;

export interface SchemaSource {
  /** "info/portfolio", "exchange/order", "subscription/l2Book". */
  key: string;
  file: string;
  typeName: string;
}

export interface SchemaCache {
  sdkVersion: string;
  generatorVersion: string;
  /** sha256 of the SDK method sources the schemas were generated from. */
  sourceHash: string;
  schemas: Record<string, Record<string, unknown>>;
}

export function schemaSources(): SchemaSource[] {
  const out: SchemaSource[] = [];
  for (const g of GROUPS) {
    const dir = join(SDK_ROOT, g.dir);
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith(".ts") || f.startsWith("_")) continue;
      const name = f.slice(0, -3);
      out.push({
        key: `${g.group}/${name}`,
        file: join(dir, f),
        typeName: `${name[0]!.toUpperCase()}${name.slice(1)}${g.suffix}`,
      });
    }
  }
  return out;
}

export function installedVersions(): { sdkVersion: string; generatorVersion: string } {
  const version = (pkg: string) =>
    (
      JSON.parse(
        readFileSync(join(import.meta.dirname, "../../node_modules", pkg, "package.json"), "utf8"),
      ) as {
        version: string;
      }
    ).version;
  return {
    sdkVersion: version("@nktkas/hyperliquid"),
    generatorVersion: version("ts-json-schema-generator"),
  };
}

/** A fingerprint of every SDK source file the response types may reach (methods and shared types). */
export function sourceHash(): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) h.update(p.slice(SDK_ROOT.length)).update(readFileSync(p));
    }
  };
  walk(join(SDK_ROOT, "src/api"));
  return h.digest("hex");
}
