import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { stopWhenOutputCloses } from "../core/closed-output.ts";
import { UserError } from "../core/errors.ts";
import { useDataDirFlag } from "./data-dir.ts";
import { groupsFor } from "./groups.ts";

/** package.json is two levels up from both src/cli and dist/cli. */
const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const program = new Command("hl")
  .description("hl-agent: autonomous trading agents on Hyperliquid, and the services around them")
  .version(version, "-V, --version", "the hl-agent version")
  .showHelpAfterError(false)
  .exitOverride();

/** One readable line and a non-zero exit for every failure; secrets never reach the message. */
function fail(err: unknown): never {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const message = err instanceof Error ? err.message : String(err);
  const scrubbed = message.replace(/0x[0-9a-fA-F]{64}/g, "0x<redacted>");
  process.stderr.write(`error: ${scrubbed.split("\n")[0]}\n`);
  if (process.env.HL_DEBUG && err instanceof Error && !(err instanceof UserError)) {
    process.stderr.write(`${err.stack ?? ""}\n`);
  }
  process.exit(1);
}

stopWhenOutputCloses();

useDataDirFlag(program);

try {
  for (const group of groupsFor(process.argv)) (await group.load()).register(program);
  await program.parseAsync(process.argv);
} catch (err) {
  fail(err);
}
