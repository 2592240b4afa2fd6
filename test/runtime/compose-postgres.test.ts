import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/** compose.postgres.yaml, layered on compose.yaml, runs the public services on one Postgres. */
interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const ROOT = join(import.meta.dirname, "../..");
const load = (file: string) => parse(readFileSync(join(ROOT, file), "utf8"), { merge: true }) as Compose;
const base = load("compose.yaml");
const overlay = load("compose.postgres.yaml");

/** What `docker compose -f compose.yaml -f compose.postgres.yaml` runs: maps merged, the rest replaced. */
function merged(name: string): Service {
  const a = base.services[name] ?? {};
  const b = overlay.services[name] ?? {};
  return {
    ...a,
    ...b,
    environment: { ...a.environment, ...b.environment },
    depends_on: { ...a.depends_on, ...b.depends_on },
  };
}

const PUBLIC = ["leaderboard", "feeds", "isfr", "points"];
const REPLICAS: Record<string, string> = {
  "leaderboard-2": "leaderboard",
  "feeds-2": "feeds",
  "isfr-2": "isfr",
  "points-2": "points",
};

describe("compose.postgres.yaml", () => {
  const pg = overlay.services.postgres!;
  const url = `postgres://${pg.environment!.POSTGRES_USER}:${pg.environment!.POSTGRES_PASSWORD}@postgres:5432/${pg.environment!.POSTGRES_DB}`;

  it("points every public service (and its replicas) at the postgres service, after the migration ran", () => {
    for (const name of [...PUBLIC, ...Object.keys(REPLICAS)]) {
      const s = merged(name);
      expect(s.environment?.DATABASE_URL, name).toBe(url);
      expect(s.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(s.depends_on?.sim?.condition, name).toBe("service_healthy");
    }
    const migrate = overlay.services.migrate!;
    expect(migrate.command).toEqual(["hl", "db", "migrate"]);
    expect(migrate.environment?.DATABASE_URL).toBe(url);
    expect(migrate.depends_on?.postgres?.condition).toBe("service_healthy");
  });

  it("only adds to services compose.yaml has, besides postgres, migrate and the second replicas", () => {
    const added = Object.keys(overlay.services).filter((n) => !base.services[n]);
    expect(added.sort()).toEqual(["feeds-2", "isfr-2", "leaderboard-2", "migrate", "points-2", "postgres"]);
  });

  it("runs each second replica as its first: same command and settings, its own name, no host ports", () => {
    const names = new Set<string>();
    for (const [replica, first] of Object.entries(REPLICAS)) {
      const a = merged(first);
      const b = merged(replica);
      expect(b.command, replica).toEqual(a.command);
      expect(b.ports, replica).toBeUndefined();
      const { HL_REPLICA_NAME: nameA, ...envA } = a.environment!;
      const { HL_REPLICA_NAME: nameB, ...envB } = b.environment!;
      expect(envB, replica).toEqual(envA);
      names.add(nameA!).add(nameB!);
    }
    for (const name of PUBLIC) names.add(merged(name).environment!.HL_REPLICA_NAME!);
    expect(names.size).toBe(PUBLIC.length + Object.keys(REPLICAS).length);
  });

  it("declares every named volume it mounts", () => {
    for (const [name, s] of Object.entries(overlay.services)) {
      for (const v of s.volumes ?? []) expect(Object.keys(overlay.volumes), name).toContain(v.split(":")[0]);
    }
  });
});
