import { agentAlertSource } from "../../alerts/agent-label.ts";
import { alerterFromEnv } from "../../alerts/webhook.ts";
import type { Network } from "../../config/defaults.ts";
import { dataDir as envDataDir } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { openClientSession } from "../../exchange/index.ts";
import { wolfConfigSchema } from "../../wolf/config.ts";
import { GuardOnly } from "../../wolf/guard-only.ts";
import { HlWolfPort } from "../../wolf/hl-port.ts";
import { loadWolfState } from "../../wolf/state.ts";

/**
 * `hl agent guard`: WOLF's guard-only loop (src/wolf/guard-only.ts: every exit rule, closes retried,
 * the exchange backstops reconciled, no entries) over the saved slots until SIGTERM/SIGINT.
 * `besidePausedTrader`: the paused trader still holds the run lock and owns state.json, so the guard
 * takes neither; otherwise (a crashed or given-up trader) both are its own.
 */
export async function runGuardOnly(o: {
  network: Network;
  dataDir?: string;
  besidePausedTrader?: boolean;
}): Promise<void> {
  const network = o.network;
  const dir = o.dataDir ? envDataDir({ DATA_DIR: o.dataDir }) : envDataDir();
  const alerter = alerterFromEnv(agentAlertSource(`WOLF guard-only (${network})`, dir, process.env));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const loaded = loadWolfState(dir);
  if (loaded.kind !== "ok") {
    log("guard-only: no WOLF state, nothing to guard");
    return;
  }
  const s = await openClientSession({ network, env: { ...process.env, DATA_DIR: dir } });
  try {
    if (!s.client.address) throw new UserError(`no wallet configured for ${network}: set HL_PRIVATE_KEY`);
    const guard = await GuardOnly.start({
      port: new HlWolfPort(s.client),
      dataDir: dir,
      config: wolfConfigSchema.parse(loaded.state.config),
      preset: loaded.state.preset,
      alerter,
      log,
      ...(o.besidePausedTrader ? { lock: false, readOnlyState: true } : {}),
    });
    log(
      `guard-only: guarding ${guard.openSlots()} open slot(s) (no entries${o.besidePausedTrader ? ", beside the paused trader" : ""})`,
    );
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    await guard.stop();
  } finally {
    await s.close();
    await alerter.flush();
  }
}
