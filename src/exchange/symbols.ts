import { UserError } from "../core/errors.ts";

/**
 * Instrument names (ours) ↔ exchange coins (Hyperliquid's):
 *   main-dex perps      `ETH-PERP`     ↔ `ETH`
 *   YEX yield perps     `VXX-USDYP`    ↔ `yex:VXX`   (the table below; an unknown `*-USDYP` is an error)
 *   other HIP-3 perps   `xyz:SPCX`     ↔ `xyz:SPCX`  (the instrument is the exchange name)
 * Input is accepted in any case (`eth-perp`, `yex:vxx`, `ETH`) and returned canonical.
 */

const YEX_MARKETS = {
  "VXX-USDYP": { coin: "yex:VXX", description: "Volatility index (VXX) yield perpetual" },
  "US3M-USDYP": { coin: "yex:US3M", description: "US 3-month Treasury rate yield perpetual" },
  "BTCSWP-USDYP": {
    coin: "yex:BTCSWP",
    description: "BTC interest rate swap yield perpetual — tracks the BTC-denominated swap curve",
  },
} as const satisfies Record<string, { coin: string; description: string }>;

const YEX_BY_COIN = new Map<string, string>(
  Object.entries(YEX_MARKETS).map(([name, m]) => [m.coin.toLowerCase(), name]),
);
const YEX_BY_NAME = new Map<string, string>(
  Object.entries(YEX_MARKETS).map(([name, m]) => [name.toUpperCase(), m.coin]),
);

export class UnknownInstrumentError extends UserError {
  override name = "UnknownInstrumentError";
}

const MAIN = /^([A-Za-z0-9_]+?)(-PERP)?$/i;
const HIP3 = /^([A-Za-z0-9_]+):([A-Za-z0-9_]+)$/;
const USDYP = /^([A-Za-z0-9_]+)-USDYP$/i;

/** One tradable market, resolved against the exchange's meta. */
export interface Market {
  /** Our canonical name (`ETH-PERP`, `VXX-USDYP`, `xyz:SPCX`). */
  instrument: string;
  /** The exchange's coin (`ETH`, `yex:VXX`, `xyz:SPCX`). */
  coin: string;
  /** Perp dex name; "" for the main dex. */
  dex: string;
  /** Order asset id: index on the main dex; 100000 + dexIndex·10000 + index on HIP-3 dexes. */
  assetId: number;
  szDecimals: number;
  maxLeverage: number;
  /** The margin table its maintenance tiers follow (meta.marginTableId), where meta gives one. */
  marginTableId?: number;
  onlyIsolated: boolean;
  /** A HIP-3 market's dex's `deployerFeeScale` (perpDexs): its fills cost more than the main dex's. */
  deployerFeeScale?: string;
  /** The asset is in growth mode (meta `growthMode: "enabled"`): its fees are a tenth. */
  growthMode?: boolean;
}

/** The dex of an exchange coin: "" for main-dex coins, the prefix for HIP-3 (`yex:VXX` → "yex"). */
export function dexOfCoin(coin: string): string {
  const idx = coin.indexOf(":");
  return idx < 0 ? "" : coin.slice(0, idx);
}

/**
 * Exchange coin for an instrument, by naming rules only (no meta needed). Case-insensitive; the coin
 * part of main-dex and HIP-3 names is upper-cased (use `SymbolTable.resolve` for mixed-case coins
 * such as `kPEPE`).
 */
export function instrumentToCoin(input: string): string {
  const name = input.trim();
  const yield_ = USDYP.exec(name);
  if (yield_) {
    const coin = YEX_BY_NAME.get(name.toUpperCase());
    if (!coin) {
      throw new UnknownInstrumentError(
        `unknown yield perp "${name}" (known: ${Object.keys(YEX_MARKETS).join(", ")})`,
      );
    }
    return coin;
  }
  const hip3 = HIP3.exec(name);
  if (hip3?.[1] && hip3[2]) return `${hip3[1].toLowerCase()}:${hip3[2].toUpperCase()}`;
  const main = MAIN.exec(name);
  if (main?.[1]) return main[1].toUpperCase();
  throw new UnknownInstrumentError(
    `"${input}" is not an instrument name (e.g. ETH-PERP, VXX-USDYP, xyz:SPCX)`,
  );
}

/** Our instrument name for an exchange coin (`ETH` → `ETH-PERP`, `yex:VXX` → `VXX-USDYP`). */
export function coinToInstrument(coin: string): string {
  const yex = YEX_BY_COIN.get(coin.toLowerCase());
  if (yex) return yex;
  return coin.includes(":") ? coin : `${coin}-PERP`;
}

/** Canonical spelling of an instrument (`eth-perp` → `ETH-PERP`, `yex:vxx` → `VXX-USDYP`, `ETH` → `ETH-PERP`). */
export function canonicalInstrument(input: string): string {
  return coinToInstrument(instrumentToCoin(input));
}

/** Shapes of the meta answers the table is built from (a subset of the SDK's response types). */
interface MetaUniverse {
  universe: readonly {
    name: string;
    szDecimals: number;
    maxLeverage: number;
    marginTableId?: number;
    onlyIsolated?: boolean;
    isDelisted?: boolean;
    growthMode?: string;
  }[];
}
type PerpDexList = readonly ({ name: string; deployerFeeScale?: string } | null)[];

/** Every perp market of every dex, addressable by instrument, coin (any case) or asset id. */
export class SymbolTable {
  private readonly byCoinLower = new Map<string, Market>();
  private readonly byAsset = new Map<number, Market>();

  constructor(markets: readonly Market[]) {
    for (const m of markets) {
      this.byCoinLower.set(m.coin.toLowerCase(), m);
      this.byAsset.set(m.assetId, m);
    }
  }

  /**
   * Build from `perpDexs` and each dex's `meta`. `metas` maps dex name ("" = main) to its meta; a dex
   * missing from `metas` is simply not tradable through this table.
   */
  static fromMeta(perpDexs: PerpDexList, metas: ReadonlyMap<string, MetaUniverse>): SymbolTable {
    const markets: Market[] = [];
    perpDexs.forEach((entry, dexIndex) => {
      const dex = dexIndex === 0 ? "" : (entry?.name ?? "");
      if (dexIndex > 0 && !entry) return;
      const meta = metas.get(dex);
      if (!meta) return;
      meta.universe.forEach((asset, index) => {
        if (asset.isDelisted) return;
        const coin = dexIndex === 0 || asset.name.includes(":") ? asset.name : `${dex}:${asset.name}`;
        markets.push({
          instrument: coinToInstrument(coin),
          coin,
          dex,
          assetId: dexIndex === 0 ? index : 100_000 + dexIndex * 10_000 + index,
          szDecimals: asset.szDecimals,
          maxLeverage: asset.maxLeverage,
          ...(asset.marginTableId !== undefined ? { marginTableId: asset.marginTableId } : {}),
          onlyIsolated: asset.onlyIsolated ?? false,
          ...(dexIndex > 0 && entry?.deployerFeeScale !== undefined
            ? { deployerFeeScale: entry.deployerFeeScale }
            : {}),
          ...(asset.growthMode === "enabled" ? { growthMode: true } : {}),
        });
      });
    });
    return new SymbolTable(markets);
  }

  markets(): Market[] {
    return [...this.byAsset.values()];
  }

  byCoin(coin: string): Market | undefined {
    return this.byCoinLower.get(coin.toLowerCase());
  }

  byAssetId(assetId: number): Market | undefined {
    return this.byAsset.get(assetId);
  }

  /** Resolve an instrument or coin name in any case; unknown names are a UserError naming the input. */
  resolve(input: string): Market {
    const market = this.byCoinLower.get(instrumentToCoin(input).toLowerCase());
    if (!market) throw new UnknownInstrumentError(`unknown instrument "${input}" on this exchange`);
    return market;
  }
}
