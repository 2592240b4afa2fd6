import type { Command } from "commander";
import { resolveNetwork } from "../config/env.ts";
import { D } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import type { AccountSummary } from "../exchange/index.ts";
import { openClientSession } from "../exchange/index.ts";
import { DATA_DIR_FLAG, DATA_DIR_HELP } from "./data-dir.ts";

/** `hl account`: account value, withdrawable, margin and positions over every dex. */
export function register(program: Command): void {
  program
    .command("account")
    .description("Show the account: value, withdrawable, margin used and positions on every dex")
    .option("--network <network>", "mainnet | testnet | paper (default: HL_NETWORK, else paper)")
    .option("--json", "print JSON for machines")
    .option(DATA_DIR_FLAG, DATA_DIR_HELP)
    .action(async (opts: { network?: string; json?: boolean }) => {
      const session = await openClientSession({ network: resolveNetwork(opts.network) });
      try {
        const { client } = session;
        if (!client.address)
          throw new UserError(`no wallet configured for ${client.network}: set HL_PRIVATE_KEY`);
        const summary = await client.accountSummary();
        if (opts.json) {
          for (const note of session.notes) process.stderr.write(`${note}\n`);
          process.stdout.write(`${JSON.stringify(accountJson(client.network, summary), null, 2)}\n`);
        } else {
          for (const note of session.notes) process.stdout.write(`${note}\n`);
          process.stdout.write(renderAccount(client.network, client.apiUrl, summary));
        }
      } finally {
        await session.close();
      }
    });
}

function accountJson(network: string, s: AccountSummary) {
  return {
    network,
    user: s.user,
    account_value: s.accountValue,
    withdrawable: s.withdrawable,
    margin_used: s.marginUsed,
    total_notional: s.totalNotional,
    dexes: s.perDex.map((d) => ({
      dex: d.dex || "main",
      account_value: d.state.marginSummary.accountValue,
      withdrawable: d.state.withdrawable,
      margin_used: d.state.marginSummary.totalMarginUsed,
    })),
    positions: s.positions.map((p) => ({
      dex: p.dex || "main",
      instrument: p.instrument,
      coin: p.coin,
      size: p.szi,
      entry_price: p.entryPx,
      position_value: p.positionValue,
      unrealized_pnl: p.unrealizedPnl,
      leverage: p.leverage.value,
      leverage_type: p.leverage.type,
      liquidation_price: p.liquidationPx,
      margin_used: p.marginUsed,
    })),
  };
}

/** Two decimals for the table; a tiny negative rounds to "0.00", not "-0.00". */
function money(v: string): string {
  const rounded = new D(v).toDecimalPlaces(2);
  return (rounded.isZero() ? new D(0) : rounded).toFixed(2);
}

/** Plain-text columns, left-aligned, two spaces apart. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, col) => cell.padEnd(widths[col] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function renderAccount(network: string, url: string, s: AccountSummary): string {
  const lines = [
    `Account ${s.user} on ${network} (${url})`,
    table([
      ["Account value", money(s.accountValue)],
      ["Withdrawable", money(s.withdrawable)],
      ["Margin used", money(s.marginUsed)],
      ["Notional", money(s.totalNotional)],
    ]),
    "",
  ];
  const activeDexes = s.perDex.filter(
    (d) => !new D(d.state.marginSummary.accountValue).isZero() || d.state.assetPositions.length > 0,
  );
  if (activeDexes.length > 1) {
    const rows = activeDexes.map((d) => [
      d.dex || "main",
      money(d.state.marginSummary.accountValue),
      money(d.state.withdrawable),
      money(d.state.marginSummary.totalMarginUsed),
    ]);
    lines.push(table([["DEX", "VALUE", "WITHDRAWABLE", "MARGIN"], ...rows]), "");
  }
  if (s.positions.length === 0) {
    lines.push("No open positions.");
  } else {
    const header = ["DEX", "INSTRUMENT", "SIDE", "SIZE", "ENTRY", "VALUE", "UPNL", "LEV", "LIQ"];
    const rows = s.positions.map((p) => [
      p.dex || "main",
      p.instrument,
      new D(p.szi).isNegative() ? "SHORT" : "LONG",
      new D(p.szi).abs().toFixed(),
      p.entryPx,
      money(p.positionValue),
      money(p.unrealizedPnl),
      `${p.leverage.value}x ${p.leverage.type}`,
      p.liquidationPx ?? "-",
    ]);
    lines.push(table([header, ...rows]));
  }
  return `${lines.join("\n")}\n`;
}
