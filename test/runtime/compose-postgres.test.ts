import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HAPROXY_CFG, haproxyBinary } from "../support/haproxy.ts";

/**
 * compose.postgres.yaml, layered on compose.yaml: two replicas of each public service on one Postgres
 * behind HAProxy, refresh workers, Prometheus and Grafana. Docker is not here, so this checks what
 * `docker compose config` would refuse (unknown services, undeclared volumes and networks, missing
 * mounted files, no image) and what would only fail at run time (a balancer or scrape target on the
 * wrong port, an env name no code reads, more connections than Postgres allows).
 */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
}

const ROOT = join(import.meta.dirname, "../..");
/** Compose's `!reset` (v2.24+): the overlay's value replaces the base's instead of adding to it. */
const RESET = [{ tag: "!reset", collection: "seq" as const, resolve: () => [] }];
const load = (file: string) =>
  parse(readFileSync(join(ROOT, file), "utf8"), { merge: true, customTags: RESET }) as Compose;
const base = load("compose.yaml");
const overlay = load("compose.postgres.yaml");

/** What `docker compose -f compose.yaml -f compose.postgres.yaml` runs: maps merged, lists replaced when reset. */
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
const allNames = [...new Set([...Object.keys(base.services), ...Object.keys(overlay.services)])];
const all = Object.fromEntries(allNames.map((n) => [n, merged(n)]));
const ours = allNames.filter((n) => all[n]!.image === "hl-agent");

const PUBLIC = ["leaderboard", "feeds", "isfr", "points"];
const REPLICAS: Record<string, string> = {
  "leaderboard-2": "leaderboard",
  "feeds-2": "feeds",
  "isfr-2": "isfr",
  "points-2": "points",
};
const WORKERS = ["leaderboard-worker-1", "leaderboard-worker-2"];

/** The port a service of ours listens on inside its container (its --port). */
function listenPort(name: string): number {
  const cmd = all[name]!.command ?? [];
  const at = cmd.indexOf("--port");
  if (at < 0) throw new Error(`${name} has no --port`);
  return Number(cmd[at + 1]);
}

/** Extra ports a service serves besides --port (the feed origins: FEEDS_PORT + 1 … + 4). */
function servedPorts(name: string): number[] {
  const port = listenPort(name);
  return all[name]!.command?.[1] === "feeds" ? [port, port + 1, port + 2, port + 3, port + 4] : [port];
}

function sourceText(dir: string): string {
  let text = "";
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) text += sourceText(path);
    else if (entry.endsWith(".ts")) text += readFileSync(path, "utf8");
  }
  return text;
}

describe("compose.postgres.yaml", () => {
  const pg = overlay.services.postgres!;
  const url = `postgres://${pg.environment!.POSTGRES_USER}:${pg.environment!.POSTGRES_PASSWORD}@postgres:5432/${pg.environment!.POSTGRES_DB}`;

  it("points every public service, replica and worker at the postgres service, after the migration ran", () => {
    for (const name of [...PUBLIC, ...Object.keys(REPLICAS), ...WORKERS]) {
      const s = all[name]!;
      expect(s.environment?.DATABASE_URL, name).toBe(url);
      expect(s.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(s.depends_on?.sim?.condition, name).toBe("service_healthy");
    }
    const migrate = overlay.services.migrate!;
    expect(migrate.command).toEqual(["hl", "db", "migrate"]);
    expect(migrate.environment?.DATABASE_URL).toBe(url);
    expect(migrate.depends_on?.postgres?.condition).toBe("service_healthy");
  });

  it("adds postgres, migrate, the balancer, the second replicas, the workers, Prometheus and Grafana", () => {
    const added = Object.keys(overlay.services).filter((n) => !base.services[n]);
    expect(added.sort()).toEqual(
      [
        "feeds-2",
        "grafana",
        "isfr-2",
        "lb",
        "leaderboard-2",
        "leaderboard-worker-1",
        "leaderboard-worker-2",
        "migrate",
        "points-2",
        "postgres",
        "prometheus",
      ].sort(),
    );
    for (const w of WORKERS) expect(all[w]!.command).toEqual(["hl", "leaderboard", "worker"]);
    for (const name of ["leaderboard", "leaderboard-2"])
      expect(all[name]!.environment?.LEADERBOARD_REFRESH_BY, name).toBe("workers");
  });

  it("runs each second replica as its first: same command and settings, its own name, no host ports", () => {
    const names = new Set<string>();
    for (const [replica, first] of Object.entries(REPLICAS)) {
      const a = all[first]!;
      const b = all[replica]!;
      expect(b.command, replica).toEqual(a.command);
      expect(a.ports ?? [], first).toEqual([]);
      expect(b.ports ?? [], replica).toEqual([]);
      expect(b.healthcheck?.test, replica).toEqual(a.healthcheck?.test);
      const { HL_REPLICA_NAME: nameA, ...envA } = a.environment!;
      const { HL_REPLICA_NAME: nameB, ...envB } = b.environment!;
      expect(envB, replica).toEqual(envA);
      names.add(nameA!).add(nameB!);
    }
    expect(names.size).toBe(PUBLIC.length + Object.keys(REPLICAS).length);
  });

  it("publishes every public port once, from the balancer, as compose.yaml published them from the first replicas", () => {
    const before = PUBLIC.flatMap((n) => base.services[n]!.ports ?? []);
    expect([...(all.lb!.ports ?? [])].sort()).toEqual([...before].sort());
    const hostPorts = allNames.flatMap((n) => (all[n]!.ports ?? []).map((p) => p.split(":").at(-2)));
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it("is a file docker compose config accepts: images, dependencies, volumes, networks and mounted files exist", () => {
    const volumes = new Set([...Object.keys(base.volumes ?? {}), ...Object.keys(overlay.volumes ?? {})]);
    for (const name of allNames) {
      const s = all[name]!;
      expect(s.image ?? s.build, `${name}: image or build`).toBeDefined();
      for (const dep of Object.keys(s.depends_on ?? {}))
        expect(allNames, `${name} depends on ${dep}`).toContain(dep);
      for (const network of Object.keys(s.networks ?? {}))
        expect(Object.keys(overlay.networks ?? {}), `${name} network`).toContain(network);
      for (const v of s.volumes ?? []) {
        const source = v.split(":")[0]!;
        if (source.startsWith("."))
          expect(existsSync(join(ROOT, source)), `${name} mounts ${source}`).toBe(true);
        else expect([...volumes], `${name} volume`).toContain(source);
      }
    }
  });

  it("sets only env names the code reads", () => {
    const src = sourceText(join(ROOT, "src"));
    for (const name of ours) {
      for (const key of Object.keys(all[name]!.environment ?? {})) {
        const read = new RegExp(`(env\\.|env\\[|["'\`])${key}\\b`).test(src);
        expect(read, `${name}: ${key} is read nowhere in src`).toBe(true);
      }
    }
  });

  it("trusts X-Forwarded-For from the balancer only, at its fixed address on the compose network", () => {
    const lbAddress = all.lb!.networks?.default?.ipv4_address;
    const subnet = overlay.networks?.default?.ipam?.config?.[0]?.subnet;
    expect(lbAddress).toBeDefined();
    expect(lbAddress!.startsWith(subnet!.split(".").slice(0, 3).join("."))).toBe(true);
    for (const name of ["leaderboard", "leaderboard-2"])
      expect(all[name]!.environment?.LEADERBOARD_TRUSTED_PROXIES, name).toBe(lbAddress);
  });

  it("reads prices through the balancer on both points replicas", () => {
    for (const name of ["points", "points-2"]) {
      const feed = new URL(all[name]!.environment!.BTCSWP_FEED_URL!);
      expect(feed.hostname, name).toBe("lb");
      expect(all.lb!.ports, name).toContain(`${feed.port}:${feed.port}`);
    }
  });

  it("health-checks the public services on paths that read Postgres", () => {
    const paths: Record<string, string> = {
      leaderboard: "/health",
      points: "/health",
      feeds: "/healthz", // a feed's origin reads its latest tick from the store
      isfr: "/isfr/health", // reads the latest snapshot from the store
    };
    for (const [name, path] of Object.entries(paths)) {
      for (const s of [name, `${name}-2`]) {
        const test = all[s]!.healthcheck?.test?.join(" ") ?? "";
        expect(test, s).toContain(path);
      }
    }
  });

  it("fits two replicas of everything and the workers in max_connections", () => {
    const command = pg as Service;
    const max = Number(/max_connections=(\d+)/.exec((command.command ?? []).join(" "))?.[1] ?? 100);
    // Besides each pool: its elections' and LISTEN connections, and the points wallet-lock pool
    // (src/db/leader.ts, notify.ts, services/points/pg-store.ts; docs/deploy.md "Connections").
    const extra: Record<string, number> = { leaderboard: 2, points: 5, feeds: 5, isfr: 2, worker: 0 };
    let total = 0;
    for (const name of [...PUBLIC, ...Object.keys(REPLICAS), ...WORKERS]) {
      const s = all[name]!;
      const kind = name.startsWith("leaderboard-worker") ? "worker" : s.command![1]!;
      total += Number(s.environment?.DATABASE_POOL_MAX ?? 10) + extra[kind]!;
    }
    const reserved = 3; // superuser_reserved_connections
    expect(total).toBeLessThanOrEqual(max - reserved);
    expect(total).toBe(78); // the figure docs/deploy.md gives
  });

  it("declares every named volume it mounts", () => {
    for (const [name, s] of Object.entries(overlay.services)) {
      for (const v of s.volumes ?? []) {
        if (!v.startsWith(".")) expect(Object.keys(overlay.volumes ?? {}), name).toContain(v.split(":")[0]);
      }
    }
  });
});

describe("deploy/haproxy.cfg", () => {
  const raw = readFileSync(join(ROOT, "deploy/haproxy.cfg"), "utf8").replace(/^\s*#.*$/gm, "");
  /** Its environment variables ("${NAME-default}"), each with the default compose runs it with. */
  const variables = [...raw.matchAll(/"\$\{([A-Z0-9_]+)(?:-([^}"]*))?\}"/g)].map((m) => ({
    name: m[1]!,
    fallback: m[2],
  }));
  /** The file as HAProxy reads it under compose, which sets none of the variables. */
  const cfg = raw.replace(/"\$\{[A-Z0-9_]+-([^}"]*)\}"/g, "$1");

  it("takes every address from a variable of its own whose default is the compose value", () => {
    expect(variables.length).toBeGreaterThan(0);
    for (const v of variables) expect(v.fallback, `${v.name} has no default`).toBeDefined();
    const names = variables.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect(all.lb!.environment ?? {}).toEqual({});
    // Only a quoted "${…}" is expanded by HAProxy: none is left bare.
    expect(cfg).not.toMatch(/\$\{/);
  });

  it("is a file HAProxy accepts as compose runs it, with none of its variables set", () => {
    // `haproxy -c` exits non-zero on an error; the replicas' names only resolve on the compose network.
    const out = execFileSync(haproxyBinary(), ["-c", "-f", HAPROXY_CFG], {
      env: { PATH: process.env.PATH ?? "" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out).toContain("Configuration file is valid");
  });
  const sections = cfg.split(/\n(?=(?:frontend|backend|global|defaults|resolvers) )/);
  const frontends = sections.filter((s) => s.startsWith("frontend "));
  const backends = sections.filter((s) => s.startsWith("backend "));

  it("binds exactly the ports the balancer publishes (and its metrics port)", () => {
    const bound = frontends.map((f) => Number(/\n\s+bind :(\d+)/.exec(f)?.[1]));
    const published = (all.lb!.ports ?? []).map((p) => Number(p.split(":").at(-1)));
    expect(bound.filter((p) => p !== 8404).sort()).toEqual([...published].sort());
  });

  it("sends each public port to both replicas of the service serving it, on that port", () => {
    for (const f of frontends.filter((f) => !f.startsWith("frontend stats"))) {
      const port = Number(/bind :(\d+)/.exec(f)![1]);
      const backend = /default_backend (\S+)/.exec(f)![1];
      const b = backends.find((s) => s.startsWith(`backend ${backend}\n`));
      expect(b, backend).toBeDefined();
      const servers = [...b!.matchAll(/\n\s+server \S+ ([a-z0-9-]+):(\d+)/g)].map(
        (m) => [m[1]!, Number(m[2])] as const,
      );
      expect(servers, backend).toHaveLength(2);
      const hosts = servers.map(([h]) => h).sort();
      const first = hosts[0]!;
      expect(hosts, backend).toEqual([first, REPLICAS[`${first}-2`] ? `${first}-2` : ""].sort());
      for (const [host, p] of servers) {
        expect(allNames, backend).toContain(host);
        expect(p, backend).toBe(port);
        expect(servedPorts(host), `${host} serves ${port}`).toContain(port);
      }
      expect(b, backend).toMatch(/http-check send meth GET uri \//);
    }
  });
});

describe("deploy/prometheus.yml and Grafana's provisioning", () => {
  const prom = parse(readFileSync(join(ROOT, "deploy/prometheus.yml"), "utf8")) as {
    scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
  };
  const targets = prom.scrape_configs.flatMap((j) => j.static_configs.flatMap((c) => c.targets));

  it("scrapes every service of ours that serves HTTP, each replica on its own port, and the balancer", () => {
    const serving = ours.filter((n) => (all[n]!.command ?? []).includes("--port"));
    for (const name of serving) expect(targets, name).toContain(`${name}:${listenPort(name)}`);
    expect(targets).toContain("lb:8404");
    for (const t of targets) expect(allNames, t).toContain(t.split(":")[0]);
  });

  it("gives Grafana this Prometheus and the dashboard where the provider reads it", () => {
    const ds = parse(
      readFileSync(join(ROOT, "deploy/grafana/provisioning/datasources/prometheus.yml"), "utf8"),
    ) as { datasources: { type: string; url: string }[] };
    const url = new URL(ds.datasources[0]!.url);
    expect(ds.datasources[0]!.type).toBe("prometheus");
    expect(all[url.hostname]?.image).toMatch(/^prom\/prometheus:/);
    const provider = parse(
      readFileSync(join(ROOT, "deploy/grafana/provisioning/dashboards/hl-agent.yml"), "utf8"),
    ) as { providers: { options: { path: string } }[] };
    const dir = provider.providers[0]!.options.path;
    const mount = (all.grafana!.volumes ?? []).find((v) => v.startsWith("./docs/grafana-dashboard.json:"));
    expect(mount?.split(":")[1]?.startsWith(`${dir}/`)).toBe(true);
    JSON.parse(readFileSync(join(ROOT, "docs/grafana-dashboard.json"), "utf8"));
  });
});
