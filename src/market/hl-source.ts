import type { Network } from "../config/defaults.ts";
import { sharedRateBudget, type WeightBudget } from "../exchange/budget.ts";
import { resolveEndpoint } from "../exchange/config.ts";
import { HlInfo } from "../exchange/info.ts";
import { instrumentToCoin } from "../exchange/symbols.ts";
import { ResilientTransport } from "../exchange/transport.ts";
import type { MarketHistorySource } from "./fetch.ts";

/** The history source of an exchange API (Hyperliquid or a sim world), on the shared weight budget. */
function hlHistorySource(info: HlInfo): MarketHistorySource {
  return {
    candleSnapshot: (req) => info.candleSnapshot(req),
    fundingHistory: (req) =>
      info.infoClient.fundingHistory({
        coin: instrumentToCoin(req.coin),
        startTime: req.startTime,
        endTime: req.endTime,
      }),
  };
}

/** Read-only info access to a network (no wallet needed); `apiUrl` overrides its URL. */
export function openHistorySource(
  network: Network,
  opts: { apiUrl?: string; budget?: WeightBudget; env?: Record<string, string | undefined> } = {},
): MarketHistorySource {
  const env = opts.env ?? process.env;
  const endpoint = resolveEndpoint(network, { apiUrl: opts.apiUrl }, env);
  const transport = new ResilientTransport({
    apiUrl: endpoint.apiUrl,
    isTestnet: endpoint.isTestnet,
    budget: opts.budget ?? sharedRateBudget(endpoint.apiUrl, env),
  });
  return hlHistorySource(new HlInfo(transport, undefined));
}
