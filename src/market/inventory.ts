import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { asyncBufferFromFile, parquetMetadataAsync } from "hyparquet";
import { dayOfFileName, joinCoin, marketDir, unescapePartition } from "./layout.ts";

/** One coin's holding of one dataset on one network. */
interface Holding {
  network: string;
  dataset: string;
  coin: string;
  firstDay: string;
  lastDay: string;
  days: number;
  /** Rows in the day files plus lines in open journals (a journal row may repeat a stored one). */
  rows: number;
}

/** Everything held under `<root>/market/`, sorted by network, dataset and coin. */
export async function listHoldings(root: string): Promise<Holding[]> {
  const out: Holding[] = [];
  for (const network of await dirs(marketDir(root))) {
    const networkDir = join(marketDir(root), network);
    for (const dataset of await dirs(networkDir)) {
      for (const dexDir of await dirs(join(networkDir, dataset))) {
        if (!dexDir.startsWith("dex=")) continue;
        for (const coinDir of await dirs(join(networkDir, dataset, dexDir))) {
          if (!coinDir.startsWith("coin=")) continue;
          const dir = join(networkDir, dataset, dexDir, coinDir);
          const holding = await summarize(dir);
          if (!holding) continue;
          out.push({
            network: unescapePartition(network),
            dataset,
            coin: joinCoin(unescapePartition(dexDir.slice(4)), unescapePartition(coinDir.slice(5))),
            ...holding,
          });
        }
      }
    }
  }
  return out.sort(
    (a, b) =>
      a.network.localeCompare(b.network) ||
      a.dataset.localeCompare(b.dataset) ||
      a.coin.localeCompare(b.coin),
  );
}

async function summarize(
  dir: string,
): Promise<Pick<Holding, "firstDay" | "lastDay" | "days" | "rows"> | undefined> {
  const days = new Set<string>();
  let rows = 0;
  for (const name of await readdir(dir)) {
    const file = dayOfFileName(name);
    if (!file) continue;
    days.add(file.day);
    const path = join(dir, name);
    if (file.journal) {
      rows += (await readFile(path, "utf8")).split("\n").filter((l) => l.endsWith("}")).length;
    } else {
      rows += Number((await parquetMetadataAsync(await asyncBufferFromFile(path))).num_rows);
    }
  }
  if (days.size === 0) return undefined;
  const sorted = [...days].sort();
  return { firstDay: sorted[0]!, lastDay: sorted[sorted.length - 1]!, days: sorted.length, rows };
}

async function dirs(path: string): Promise<string[]> {
  try {
    return (await readdir(path, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/** The holdings as an aligned text table. */
export function renderHoldings(holdings: readonly Holding[]): string {
  if (holdings.length === 0) return "no market data held\n";
  const header = ["NETWORK", "DATASET", "COIN", "FIRST DAY", "LAST DAY", "DAYS", "ROWS"];
  const lines = holdings.map((h) => [
    h.network,
    h.dataset,
    h.coin,
    h.firstDay,
    h.lastDay,
    String(h.days),
    String(h.rows),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[fmt(header), ...lines.map(fmt)].join("\n")}\n`;
}
