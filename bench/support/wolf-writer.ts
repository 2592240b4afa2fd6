import { buildWolfConfig } from "../../src/wolf/config.ts";
import { freshState, saveWolfState } from "../../src/wolf/state.ts";

/** A stand-in WOLF job: a valid state.json whose tick_count advances every TICK_MS. */
const dataDir = process.env.DATA_DIR!;
const tickMs = Number(process.env.TICK_MS ?? 200);
const state = freshState("default", buildWolfConfig("default"), Date.now());
saveWolfState(dataDir, state);
setInterval(() => {
  state.tick_count += 1;
  saveWolfState(dataDir, state);
}, tickMs);
process.on("SIGTERM", () => process.exit(0));
