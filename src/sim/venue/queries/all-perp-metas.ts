import type { InfoHandler } from "./context.ts";

/** allPerpMetas: the `meta` of every perp dex, in perpDexs order (main dex first). */
export const allPerpMetas: InfoHandler = (c) => c.core.dexes.map((d) => c.ask({ type: "meta", dex: d.name }));
