import type { MoversScan } from "./movers.ts";
import type { MoversConfig } from "./movers-config.ts";
import type { ScanResult } from "./scanner.ts";
import type { ScannerConfig } from "./scanner-config.ts";

/** Human-readable output of the scanner and movers (the CLI prints these). */

function usdShort(x: number): string {
  if (x >= 1e9) return `$${(x / 1e9).toFixed(1)}B`;
  if (x >= 1e6) return `$${(x / 1e6).toFixed(1)}M`;
  if (x >= 1e3) return `$${(x / 1e3).toFixed(0)}K`;
  return `$${x.toFixed(0)}`;
}

export function formatScan(r: ScanResult, scanNo = 1): string {
  const s = r.stats;
  const lines = [
    `SCAN #${scanNo} | BTC ${r.btc_macro.trend} (EMA diff ${r.btc_macro.diff_pct.toFixed(2)}%) | ${s.assets_scanned} assets → ${s.passed_stage1} → ${s.deep_dived} deep → ${s.qualified} qualified | ${s.scan_duration_ms} ms`,
  ];
  if (s.skipped_no_candles) lines.push(`  (${s.skipped_no_candles} assets skipped: no candles)`);
  if (r.opportunities.length === 0) {
    lines.push("No qualifying opportunities found.");
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `${"Rank".padEnd(5)}${"Dir".padEnd(6)}${"Asset".padEnd(12)}${"Score".padStart(7)}${"Raw".padStart(7)}${"Macro".padStart(6)}${"MS".padStart(6)}${"TEC".padStart(6)}${"FND".padStart(6)}${"RSI".padStart(6)}${"Vol$".padStart(9)}${"Streak".padStart(7)}`,
  );
  r.opportunities.slice(0, 10).forEach((o, i) => {
    lines.push(
      `${String(i + 1).padEnd(5)}${o.direction.padEnd(6)}${o.asset.padEnd(12)}${o.final_score.toFixed(1).padStart(7)}${o.raw_score.toFixed(1).padStart(7)}${String(o.macro_modifier).padStart(6)}${o.pillar_scores.market_structure.toFixed(0).padStart(6)}${o.pillar_scores.technicals.toFixed(0).padStart(6)}${o.pillar_scores.funding.toFixed(0).padStart(6)}${o.technicals.rsi1h.toFixed(0).padStart(6)}${usdShort(o.market_data.vol24h).padStart(9)}${String(o.momentum.scan_streak).padStart(7)}`,
    );
    if (o.risks.length) lines.push(`     Risks: ${o.risks.join(", ")}`);
  });
  return `${lines.join("\n")}\n`;
}

export function formatMovers(m: MoversScan, cfg: MoversConfig, scanNo = 1): string {
  const s = m.stats;
  const lines = [
    `MOVERS #${scanNo} | ${s.total_assets} assets → ${s.qualifying} qualifying → ${s.signals_detected} signals (history=${s.history_depth})`,
  ];
  if (m.signals.length === 0) {
    lines.push(
      s.has_baseline
        ? "No emerging movers detected."
        : `Building baseline... (${s.history_depth}/${cfg.min_scans_for_signal} scans)`,
    );
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `${"#".padEnd(4)}${"Type".padEnd(17)}${"Dir".padEnd(6)}${"Asset".padEnd(12)}${"Conf".padStart(6)}${"OI%".padStart(8)}${"VolX".padStart(7)}${"Fund".padStart(12)}`,
  );
  m.signals.forEach((x, i) => {
    lines.push(
      `${String(i + 1).padEnd(4)}${x.signal_type.padEnd(17)}${x.direction.padEnd(6)}${x.asset.padEnd(12)}${x.confidence.toFixed(0).padStart(6)}${x.oi_delta_pct.toFixed(1).padStart(8)}${x.volume_surge_ratio.toFixed(1).padStart(7)}${x.funding_shift.toExponential(2).padStart(12)}${x.is_erratic ? " *" : ""}`,
    );
  });
  return `${lines.join("\n")}\n`;
}

export function formatScannerPreset(name: string, c: ScannerConfig): string {
  const w = c.pillar_weights;
  return `\n${name}:\n  min_volume_24h: ${usdShort(c.min_volume_24h)}\n  top_n_deep: ${c.top_n_deep}\n  score_threshold: ${c.score_threshold}\n  weights: market ${w.market_structure} / technicals ${w.technicals} / funding ${w.funding}\n`;
}

export function formatMoversPreset(name: string, c: MoversConfig): string {
  return `\n${name}:\n  oi_delta_immediate_pct: ${c.oi_delta_immediate_pct}\n  oi_delta_breakout_pct: ${c.oi_delta_breakout_pct}\n  volume_surge_ratio: ${c.volume_surge_ratio}\n  volume_min_24h: ${usdShort(c.volume_min_24h)}\n`;
}
