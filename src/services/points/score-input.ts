import { z } from "zod";
import { wire } from "../../core/decimal.ts";
import { fillPoints, type ScoringFill, type ScoringRules, scoreWallet, usd } from "./scoring.ts";
import { wireTotals } from "./totals.ts";

/**
 * `hl points score`: the formula reachable from outside without an exchange. Input is a JSON array
 * of one wallet's fills, each with its oracle mark and builder attribution; output is each fill's
 * points and the totals.
 */
const decimalString = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const s = String(v).trim();
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) {
    ctx.addIssue({ code: "custom", message: `not a decimal number: ${s}` });
    return z.NEVER;
  }
  return s;
});

const timeField = z.union([z.number().int(), z.string()]).transform((v, ctx) => {
  const ms = typeof v === "number" ? v : Date.parse(v);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: "custom", message: `not a time: ${v}` });
    return z.NEVER;
  }
  return ms;
});

const scoreInputSchema = z.array(
  z.object({
    /** Epoch ms or ISO 8601. */
    time: timeField,
    px: decimalString,
    sz: decimalString,
    /** True for a taker fill. */
    crossed: z.boolean(),
    /** Oracle mark at fill time; null or absent = none stored. */
    mark: decimalString.nullable().optional(),
    /** Builder code the fill is attributed to; null or absent = none. */
    builder: z.string().nullable().optional(),
    /** Attributed provisionally (the day's builder file is not published yet). */
    provisional: z.boolean().optional(),
  }),
);

export function scoreFillsInput(rules: ScoringRules, eligibleBuilders: readonly string[], input: unknown) {
  const parsed = scoreInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RangeError(`fill ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const eligible = new Set(eligibleBuilders.map((b) => b.toLowerCase()));
  const fills = parsed.data;
  // Score in time order (stable), report in input order.
  const order = fills.map((_, i) => i).sort((a, b) => fills[a]!.time - fills[b]!.time);
  const scoring: ScoringFill[] = order.map((i) => {
    const f = fills[i]!;
    const attributed = f.builder != null && eligible.has(f.builder.toLowerCase());
    return {
      time: f.time,
      px: f.px,
      sz: f.sz,
      crossed: f.crossed,
      mark: f.mark ?? null,
      attribution: attributed ? (f.provisional ? "provisional" : "confirmed") : null,
    };
  });
  const { outcomes, score } = scoreWallet(rules, scoring);
  const perFill = new Array(fills.length);
  order.forEach((inputIndex, k) => {
    const o = outcomes[k]!;
    perFill[inputIndex] = {
      index: inputIndex,
      time: new Date(fills[inputIndex]!.time).toISOString(),
      role: o.taker ? "taker" : "maker",
      volume_usd: wire(usd(o.volume)),
      eligible_volume_usd: wire(usd(o.eligible)),
      capped_volume_usd: wire(usd(o.capped)),
      points: wire(fillPoints(rules, o)),
      excluded: o.excluded,
      provisional: o.provisional,
    };
  });
  return {
    fills: perFill,
    ...wireTotals(score),
  };
}
