import { startSimWorld } from "../../src/sim/world.ts";

/**
 * A sim world in its own process (no history, no house makers) enforcing Hyperliquid's per-IP weight
 * limit at IP_WEIGHT_LIMIT per minute; prints {port, url}. Stops on SIGTERM.
 */
const world = await startSimWorld({
  historyDays: 0,
  houseMakers: false,
  seed: 5,
  ipWeightLimit: Number(process.env.IP_WEIGHT_LIMIT),
});
process.stdout.write(`${JSON.stringify({ port: world.port, url: world.url })}\n`);
process.once("SIGTERM", () => {
  void world.close().then(() => process.exit(0));
});
