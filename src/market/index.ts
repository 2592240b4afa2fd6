export { readAssetCtxs, writeAssetCtxs } from "./asset-ctx.ts";
export { readBooks, writeBooks } from "./books.ts";
export { candleSpecOf, readCandleColumns, readCandles, writeCandles } from "./candles.ts";
export { canonicalDecimal, decimalToDouble, doubleToDecimal } from "./decimal-double.ts";
export { readFunding, writeFunding } from "./funding.ts";
export * from "./layout.ts";
export { readTrades, TRADES_SPEC, writeTrades } from "./trades.ts";
export * from "./types.ts";
