import type { Command } from "commander";
import { UserError } from "../core/errors.ts";
import { importSqlite, importSummary } from "../db/import/run.ts";
import { migrate, migrationStatus } from "../db/migrate.ts";
import { createPool, requireDatabaseUrl } from "../db/pool.ts";

/** `hl db migrate | status`: the Postgres schema the public services share (DATABASE_URL). */
export function register(program: Command): void {
  const db = program
    .command("db")
    .description("Postgres store of the public services (DATABASE_URL): migrations, SQLite import");

  db.command("migrate")
    .description("Apply pending schema migrations (safe to run from several replicas at once)")
    .action(async () => {
      const pool = createPool(requireDatabaseUrl());
      try {
        const applied = await migrate(pool);
        for (const name of applied) process.stdout.write(`applied ${name}\n`);
        process.stdout.write(applied.length === 0 ? "schema up to date\n" : `${applied.length} applied\n`);
      } finally {
        await pool.end();
      }
    });

  db.command("status")
    .description("List the migrations: applied (with when), pending, edited after applying, or unknown")
    .action(async () => {
      const pool = createPool(requireDatabaseUrl());
      try {
        for (const m of await migrationStatus(pool)) {
          const state =
            m.appliedAt === null
              ? "pending"
              : `applied ${new Date(m.appliedAt).toISOString()}${m.changed ? " (file changed since)" : ""}${m.unknown ? " (not in this version)" : ""}`;
          process.stdout.write(`${m.name}  ${state}\n`);
        }
      } finally {
        await pool.end();
      }
    });

  db.command("import")
    .description(
      "Copy the SQLite files of leaderboard, points, ISFR and feeds into Postgres and verify the row counts (idempotent)",
    )
    .option(
      "--data-dir <dir>",
      "the deployment's DATA_DIR (default DATA_DIR; LEADERBOARD_DB, POINTS_DB, … still apply)",
    )
    .action(async (opts: { dataDir?: string }) => {
      const env = opts.dataDir ? { ...process.env, DATA_DIR: opts.dataDir } : process.env;
      const pool = createPool(requireDatabaseUrl());
      try {
        const { lines, ok } = importSummary(await importSqlite(pool, env));
        process.stdout.write(`${lines.join("\n")}\n`);
        if (!ok) throw new UserError("import: row counts differ between SQLite and Postgres (see above)");
      } finally {
        await pool.end();
      }
    });
}
