import type { Command } from "commander";
import { UserError } from "../core/errors.ts";
import { processContext } from "../services/host/types.ts";
import { pointsConfig } from "../services/points/config.ts";
import { scoreFillsInput } from "../services/points/score-input.ts";
import { servePoints } from "../services/points/serve.ts";
import { serveUntilStopped } from "./signals.ts";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `hl points serve` (the BTCSWP points API) and `hl points score` (the formula on stdin fills). */
export function register(program: Command): void {
  const points = program.command("points").description("BTCSWP launch points: API and scoring");

  points
    .command("serve")
    .description("Serve the points API under /points on POINTS_PORT (8300) and the points page at /points/")
    .option("--port <port>", "port (default POINTS_PORT, else 8300)")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .action(async (opts: { port?: string; network?: string }) => {
      await serveUntilStopped(() => servePoints(opts, processContext("points")));
    });

  points
    .command("score")
    .description(
      "Score a JSON array of fills from stdin: [{time, px, sz, crossed, mark, builder, provisional?}] → each fill's points and the total",
    )
    .action(async () => {
      const cfg = pointsConfig("paper", "");
      const text = await readStdin();
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        throw new UserError("stdin is not JSON: expected an array of fills");
      }
      try {
        const result = scoreFillsInput(
          cfg.rules,
          cfg.builders.map((b) => b.address),
          input,
        );
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } catch (err) {
        if (err instanceof RangeError) throw new UserError(err.message);
        throw err;
      }
    });
}
