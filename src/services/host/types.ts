import { UserError } from "../../core/errors.ts";
import { createLogger } from "../../core/log.ts";
import type { Log, LogFields } from "../../db/log.ts";

/** What a service's start function needs from whoever runs it: its own `hl … serve` or a shared host. */
export interface ServeContext {
  /** The environment this service reads its settings from (a host gives each service its own). */
  env: Record<string, string | undefined>;
  /** One line for the person watching (stdout of the process). */
  log: (line: string) => void;
  /** One note worth printing on stderr. */
  warn: (line: string) => void;
  /**
   * The structured log a service's own events go to (one JSON object per line on stderr). Without it
   * a service logs through its own pino logger (createLogger), to the same place.
   */
  logger?: (service: string) => Log;
}

/**
 * A service's structured log, each event naming its replica (`HL_REPLICA_NAME`): the context's logger
 * when it has one, else a pino logger of its own.
 */
export function serviceLog(ctx: ServeContext, service: string): Log {
  const replica = ctx.env.HL_REPLICA_NAME;
  const log = (ctx.logger ?? createLogger)(service);
  const tagged = (f: LogFields): LogFields => ({ replica, ...f });
  return {
    info: (f, msg) => log.info(tagged(f), msg),
    warn: (f, msg) => log.warn(tagged(f), msg),
    error: (f, msg) => log.error(tagged(f), msg),
  };
}

/** A started service: it listens until closed. */
export interface RunningService {
  close(): Promise<void>;
}

/** The options of a `serve` command as the command line gives them (values or bare flags). */
export type ServeOptions = Record<string, string | boolean | undefined>;

/** Starts one service with the options of its `serve` command. */
export type StartService = (opts: ServeOptions, ctx: ServeContext) => Promise<RunningService>;

/**
 * The context of a service run as its own process (`service` names it in the log). A console line is
 * printed for the person watching (stdout, as before); a note is logged, as a `note` event, in the
 * structured log (one JSON object per line on stderr, docs/logging.md). A service logs its start
 * itself (with its URL, when it listens); `logConsole` also logs every console line, as a `console`
 * event, for a process whose console lines are its events (the traders: started, stopped, restarted).
 */
export function processContext(service: string, opts: { logConsole?: boolean } = {}): ServeContext {
  const log = createLogger(service);
  return {
    env: process.env,
    log: (line) => {
      process.stdout.write(`${line}\n`);
      if (opts.logConsole) log.info({ event: "console" }, line);
    },
    warn: (line) => log.warn({ event: "note" }, line),
    logger: (name) => createLogger(name),
  };
}

/** A string option, or undefined; a bare flag where a value belongs is an error. */
export function stringOption(opts: ServeOptions, name: string, flag: string): string | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new UserError(`${flag} needs a value`);
  return v;
}
