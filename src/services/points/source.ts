import type { Address, HlInfo } from "../../exchange/index.ts";
import type { FillSource } from "./service.ts";

/** FillSource over the exchange client: paginated userFillsByTime, maxBuilderFee, and the exchange clock. */
export function exchangeFillSource(info: HlInfo): FillSource {
  return {
    async now() {
      const book = await info.l2Book("BTC");
      if (!book) throw new Error("the exchange returned no BTC book to read its clock from");
      return book.time;
    },
    async fills(user, startMs) {
      const fills = await info.userFillsSince({ user: user as Address, startTime: startMs });
      return fills.map((f) => ({
        tid: f.tid,
        time: f.time,
        coin: f.coin,
        side: f.side,
        px: f.px,
        sz: f.sz,
        crossed: f.crossed,
        ...(f.builderFee !== undefined ? { builderFee: f.builderFee } : {}),
      }));
    },
    maxBuilderFee(user, builder) {
      return info.maxBuilderFee({ user: user as Address, builder: builder as Address });
    },
  };
}
