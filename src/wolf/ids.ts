import { randomBytes } from "node:crypto";

/** A fresh client order id (16 random bytes, hex), as Hyperliquid's `c` field takes it. */
export const newCloid = (): `0x${string}` => `0x${randomBytes(16).toString("hex")}`;
