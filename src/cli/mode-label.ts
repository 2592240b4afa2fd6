/**
 * What a strategy run trades on, as its start banner and `hl status` say it: LIVE only when real money
 * is at stake; the paper network (the sim world) is "PAPER" whether reached by --mock or --network paper.
 */
export function modeLabel(mode: string | undefined, network: string | undefined): string {
  const where = network ?? "network unknown";
  if (mode === "mock") return "MOCK (paper network)";
  if (mode === "live")
    return network === "paper" ? "PAPER (paper network, no real funds)" : `LIVE (${where})`;
  if (mode === "dry-run" || mode === "dry_run") return `DRY RUN (${where} market data)`;
  return `${mode ?? "unknown"} (${where})`;
}
