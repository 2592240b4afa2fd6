import type { InfoHandler } from "./context.ts";

/** exchangeStatus: the server time; the sim never runs in a special (halted, upgrading) state. */
export const exchangeStatus: InfoHandler = (c) => ({ time: c.now, specialStatuses: null });
