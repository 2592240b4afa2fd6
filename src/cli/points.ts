import type { Command } from "commander";
import { apiUrl, resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { openClientSession } from "../exchange/index.ts";
import { pointsConfig } from "../services/points/config.ts";
import { scoreFillsInput } from "../services/points/score-input.ts";
import { startPoints } from "../services/points/server.ts";
import { exchangeFillSource } from "../services/points/source.ts";

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
      const network = resolveNetwork(opts.network);
      const cfg = pointsConfig(network, apiUrl(network));
      if (opts.port !== undefined) {
        const port = Number(opts.port);
        if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
          throw new UserError(`--port must be a port number, got "${opts.port}"`);
        cfg.port = port;
      }
      const session = await openClientSession({ network, paperWallet: false });
      for (const note of session.notes) process.stderr.write(`${note}\n`);
      const running = await startPoints(cfg, { fills: exchangeFillSource(session.client) });
      process.stdout.write(`points API on ${running.url}/points (marks from ${cfg.feedUrl})\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
      await running.close();
      await session.close();
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
