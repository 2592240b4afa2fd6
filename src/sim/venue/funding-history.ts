/** One settled funding hour, as fundingHistory answers it. */
interface FundingRecord {
  time: number;
  fundingRate: string;
  premium: string;
}

const HOUR = 3_600_000;

type RenderFunding = (premium: number) => { fundingRate: string; premium: string };

/**
 * A market's settled funding, oldest first: the past as one number per hour (rendered only when
 * asked for: a month of it for every market would otherwise be a few hundred thousand strings),
 * then the hours settled live.
 */
export class FundingHistory {
  private past: { hourStartMs: number; premiums: Float64Array; render: RenderFunding } = {
    hourStartMs: 0,
    premiums: new Float64Array(0),
    render: () => ({ fundingRate: "0", premium: "0" }),
  };
  private readonly live: FundingRecord[] = [];

  /**
   * The past's hours: hour i covers [hourStartMs + i·1 h, +1 h) and settles at its end, with the rate
   * and premium strings `render` makes from its average premium. Hours ending after `untilMs` are left out.
   */
  setPast(hourStartMs: number, premiums: Float64Array, untilMs: number, render: RenderFunding): void {
    const count = Math.max(0, Math.min(premiums.length, Math.floor((untilMs - hourStartMs) / HOUR)));
    this.past = { hourStartMs, premiums: premiums.subarray(0, count), render };
  }

  push(r: FundingRecord): void {
    this.live.push(r);
  }

  /** Records settled in [start, end], oldest first, at most `limit`. */
  between(start: number, end: number, limit: number): FundingRecord[] {
    const out: FundingRecord[] = [];
    const { hourStartMs, premiums } = this.past;
    const first = Math.max(0, Math.ceil((start - hourStartMs) / HOUR) - 1);
    for (let i = first; i < premiums.length && out.length < limit; i++) {
      const time = hourStartMs + (i + 1) * HOUR;
      if (time < start) continue;
      if (time > end) return out;
      out.push({ time, ...this.past.render(premiums[i]!) });
    }
    for (const r of this.live) {
      if (out.length >= limit) break;
      if (r.time >= start && r.time <= end) out.push(r);
    }
    return out;
  }
}
