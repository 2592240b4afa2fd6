import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAgentConfig } from "../../src/services/agent/config.ts";
import { startAgentService } from "../../src/services/agent/server.ts";
import { agentMappers, skillInstall, strategyCatalog } from "../../src/services/agent/wiring.ts";

/**
 * The agent service in its own process for the benchmark, supervising a stand-in trading job that
 * writes wolf/state.json every 200 ms, so /api/status and /api/feed serve a running, ticking agent.
 */
const dataDir = mkdtempSync(join(tmpdir(), "hl-agent-bench-"));
const cfg = { ...readAgentConfig({ RUN_MODE: "wolf", DATA_DIR: dataDir }), port: 0, host: "127.0.0.1" };
const svc = await startAgentService(cfg, {
  mappers: await agentMappers(cfg.mode),
  catalog: strategyCatalog,
  skillInstall,
  supervisor: {
    entry: fileURLToPath(new URL("../../bin/run-ts.mjs", import.meta.url)),
    args: [fileURLToPath(new URL("./wolf-writer.ts", import.meta.url))],
    env: { ...process.env, DATA_DIR: dataDir, TICK_MS: "200" },
    stdio: "ignore",
  },
});
process.stdout.write(`listening on http://127.0.0.1:${svc.port}\n`);
process.once("SIGTERM", async () => {
  await svc.close();
  process.exit(0);
});
