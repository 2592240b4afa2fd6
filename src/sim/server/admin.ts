import { z } from "zod";
import type { Address } from "../venue.ts";

/** What the admin endpoints (`/sim/...`, not part of the exchange protocol) can do to the world. */
export interface SimControl {
  deposit(user: Address, amount: string): unknown;
  withdraw(user: Address, amount: string): unknown;
  /** Move a coin's oracle (and the model's path) to `px`; house makers requote around it. */
  setPrice(coin: string, px: string): unknown;
  /** Skip sim time forward, running funding, candles and the model through it. */
  advance(ms: number): unknown;
  /** Force a drift on a coin for a while (a "mover"). */
  scenario(s: { coin: string; driftPerHour: number; durationMs: number }): unknown;
  /** Delist a market now: its orders cancelled, its positions settled, no order accepted after. */
  delist(coin: string): unknown;
  state(): unknown;
  health(): unknown;
}

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an address (0x + 40 hex characters)")
  .transform((s) => s.toLowerCase() as Address);
const positiveDecimal = z
  .union([z.string(), z.number()])
  .transform(String)
  .refine((s) => /^\d+(\.\d+)?$/.test(s) && Number(s) > 0, "must be a positive decimal");

const schemas = {
  deposit: z.object({ user: address, amount: positiveDecimal }),
  withdraw: z.object({ user: address, amount: positiveDecimal }),
  price: z.object({ coin: z.string().min(1), px: positiveDecimal }),
  advance: z.object({
    ms: z
      .number()
      .int()
      .nonnegative()
      .max(366 * 24 * 3_600_000),
  }),
  delist: z.object({ coin: z.string().min(1) }),
  scenario: z.object({
    coin: z.string().min(1),
    driftPerHour: z.number().min(-1).max(1),
    durationMs: z.number().int().positive(),
  }),
};

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new AdminError(400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
  }
  return r.data;
}

/** Route one admin request; returns the JSON answer or throws AdminError. */
export function handleAdmin(method: string, path: string, body: unknown, control: SimControl): unknown {
  const route = `${method} ${path}`;
  switch (route) {
    case "GET /sim/health":
      return control.health();
    case "GET /sim/state":
      return control.state();
    case "POST /sim/deposit": {
      const b = parse(schemas.deposit, body);
      return control.deposit(b.user, b.amount);
    }
    case "POST /sim/withdraw": {
      const b = parse(schemas.withdraw, body);
      return control.withdraw(b.user, b.amount);
    }
    case "POST /sim/price": {
      const b = parse(schemas.price, body);
      return control.setPrice(b.coin, b.px);
    }
    case "POST /sim/advance": {
      const b = parse(schemas.advance, body);
      return control.advance(b.ms);
    }
    case "POST /sim/delist": {
      const b = parse(schemas.delist, body);
      return control.delist(b.coin);
    }
    case "POST /sim/scenario": {
      const b = parse(schemas.scenario, body);
      return control.scenario(b);
    }
    default:
      throw new AdminError(404, `Not found: ${method} ${path}`);
  }
}
