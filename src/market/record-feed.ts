import type { HlStream, Subscription } from "../exchange/ws.ts";
import type { MarketRecorder } from "./recorder.ts";

/** The journals reach the disk this often, well inside the one second a crash may lose. */
const FLUSH_EVERY_MS = 250;

interface Recording {
  /** Unsubscribes, then flushes and compacts everything recorded. */
  stop(): Promise<void>;
}

/** Feeds a recorder from the WebSocket: trades, l2Book and activeAssetCtx of each coin. */
export async function startRecording(
  stream: HlStream,
  recorder: MarketRecorder,
  coins: readonly string[],
  opts: { flushEveryMs?: number; onError?: (err: unknown) => void } = {},
): Promise<Recording> {
  const onError = opts.onError ?? (() => undefined);
  const subs: Subscription[] = [];
  const timer = setInterval(() => recorder.tick().catch(onError), opts.flushEveryMs ?? FLUSH_EVERY_MS);
  try {
    for (const coin of coins) {
      subs.push(await stream.trades(coin, (trades) => recorder.trades(coin, trades)));
      subs.push(await stream.l2Book(coin, (book) => recorder.book(coin, book)));
      subs.push(await stream.activeAssetCtx(coin, (e) => recorder.assetCtx(coin, e.ctx)));
    }
  } catch (err) {
    clearInterval(timer);
    await Promise.all(subs.map((s) => s.unsubscribe().catch(() => undefined)));
    throw err;
  }
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(subs.map((s) => s.unsubscribe().catch(() => undefined)));
      await recorder.stop();
    },
  };
}
