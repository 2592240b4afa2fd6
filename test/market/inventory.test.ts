import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { journalLine } from "../../src/market/day-store.ts";
import { coinDir, journalFile, TRADES_SPEC, writeCandles, writeTrades } from "../../src/market/index.ts";
import { listHoldings, renderHoldings } from "../../src/market/inventory.ts";

const root = mkdtempSync(join(tmpdir(), "market-ls-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const DAY0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

describe("listHoldings", () => {
  it("lists each network, dataset and coin with its first and last day and rows, journals included", async () => {
    expect(await listHoldings(root)).toEqual([]);
    expect(renderHoldings([])).toBe("no market data held\n");
    const k = (t: number) => ({ t, T: t + 59_999, o: "1", h: "1", l: "1", c: "1", v: "0", n: 0 });
    await writeCandles({ root, network: "mainnet", coin: "xyz:SPCX", interval: "1m" }, [
      k(DAY0),
      k(DAY0 + 2 * DAY),
      k(DAY0 + 2 * DAY + 60_000),
    ]);
    await writeTrades({ root, network: "paper", coin: "ETH" }, [
      { t: DAY0, px: "3000", sz: "1", side: "B", tid: "1" },
    ]);
    const dir = coinDir(root, "paper", "trades", "ETH");
    appendFileSync(
      journalFile(dir, "2026-01-02"),
      journalLine(TRADES_SPEC, { t: DAY0 + DAY, px: "3001", sz: "1", side: "A", tid: "2" }),
    );
    const held = await listHoldings(root);
    expect(held).toEqual([
      {
        network: "mainnet",
        dataset: "candles_1m",
        coin: "xyz:SPCX",
        firstDay: "2026-01-01",
        lastDay: "2026-01-03",
        days: 2,
        rows: 3,
      },
      {
        network: "paper",
        dataset: "trades",
        coin: "ETH",
        firstDay: "2026-01-01",
        lastDay: "2026-01-02",
        days: 2,
        rows: 2,
      },
    ]);
    expect(renderHoldings(held).split("\n")[1]).toBe(
      "mainnet  candles_1m  xyz:SPCX  2026-01-01  2026-01-03     2     3",
    );
  });
});
