/**
 * The exchange's clock as seen from the service: the time of its last answer, run forward at the
 * pace it was last seen to run (a sim world may run faster than the wall clock). Before any answer,
 * the wall clock. Pure: the wall clock is given.
 */
export class ExchangeClock {
  private last: { exchangeMs: number; wallMs: number } | undefined;
  private pace = 1;

  /** An answer stamped `exchangeMs` by the exchange arrived at `wallMs`. */
  observe(exchangeMs: number, wallMs: number): void {
    const prev = this.last;
    if (prev && wallMs > prev.wallMs && exchangeMs >= prev.exchangeMs)
      this.pace = (exchangeMs - prev.exchangeMs) / (wallMs - prev.wallMs);
    this.last = { exchangeMs, wallMs };
  }

  now(wallMs: number): number {
    if (!this.last) return wallMs;
    return Math.round(this.last.exchangeMs + (wallMs - this.last.wallMs) * this.pace);
  }
}
