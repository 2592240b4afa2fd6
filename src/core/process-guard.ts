import { redactSecrets } from "../exchange/errors.ts";

/**
 * For trading commands: an error that escaped every handler (an unhandled rejection, an uncaught
 * exception) is logged and alerted, and the process keeps running so open positions stay guarded,
 * instead of exiting. Returns a function that removes the handlers.
 */
export function keepRunningOnStrayErrors(o: {
  log: (line: string) => void;
  alert?: (text: string) => void;
}): () => void {
  const report = (kind: string) => (err: unknown) => {
    const text = redactSecrets(`${kind}: ${err instanceof Error ? err.message : String(err)}; still running`);
    o.log(text);
    o.alert?.(text);
  };
  const onRejection = report("unhandled rejection");
  const onException = report("uncaught exception");
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  return () => {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  };
}
