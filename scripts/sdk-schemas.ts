import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGenerator } from "ts-json-schema-generator";
import {
  GROUPS,
  installedVersions,
  SCHEMA_CACHE,
  type SchemaCache,
  SDK_ROOT,
  schemaSources,
  sourceHash,
} from "../test/conformance/sdk-schema-source.ts";

/**
 * `node bin/run-ts.mjs scripts/sdk-schemas.ts`: regenerate test/fixtures/sdk-schemas.json, the JSON
 * Schemas of @nktkas/hyperliquid's response types, with the options the SDK's own tests use against
 * the real API (jsDoc tags such as @pattern kept, strict tuples, no additional properties). Slow
 * (a TypeScript program per method group), so the conformance test reads the cache instead.
 */
const work = mkdtempSync(join(tmpdir(), "sdk-schemas-"));
try {
  const tsconfig = join(work, "tsconfig.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ESNext",
        module: "ESNext",
        moduleResolution: "Bundler",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
    }),
  );
  const sources = schemaSources();
  const schemas: SchemaCache["schemas"] = {};
  for (const g of GROUPS) {
    const generator = createGenerator({
      path: join(SDK_ROOT, g.dir, "*.ts"),
      tsconfig,
      skipTypeCheck: true,
      jsDoc: "extended",
      sortProps: false,
      strictTuples: true,
      additionalProperties: false,
      topRef: true,
      expose: "all",
    });
    for (const s of sources.filter((x) => x.key.startsWith(`${g.group}/`))) {
      try {
        schemas[s.key] = generator.createSchema(s.typeName) as Record<string, unknown>;
      } catch (err) {
        process.stderr.write(`${s.key}: no ${s.typeName} (${err instanceof Error ? err.message : err})\n`);
      }
    }
  }
  const cache: SchemaCache = { ...installedVersions(), sourceHash: sourceHash(), schemas };
  writeFileSync(SCHEMA_CACHE, `${JSON.stringify(cache)}\n`);
  process.stdout.write(`${Object.keys(schemas).length} schemas → ${SCHEMA_CACHE}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
