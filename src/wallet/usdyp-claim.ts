import { UserError } from "../core/errors.ts";

/** Nunchi's API, where testnet USDyP (the YEX markets' collateral) is claimed. */
export const NUNCHI_API_URL = "https://api-temp.nunchi.trade";
const USDYP_CLAIM_ENDPOINT = "/api/v1/yex/usdyp-claim";

/** The usual refusal and what fixes it, said when a claim is refused for a reason other than a repeat. */
export const NOT_CONNECTED_HINT =
  "The usual cause: this wallet has not been connected on Nunchi's testnet app yet. Open the app, connect this wallet once (same address), then run 'hl setup claim-usdyp' again.";

interface ClaimResult {
  url: string;
  address: string;
  status: number;
  body: unknown;
}

/** POST `{"userAddress"}` with `x-network: testnet` to `<baseUrl>/api/v1/yex/usdyp-claim`. */
export async function claimUsdyp(baseUrl: string, address: string, timeoutMs = 15_000): Promise<ClaimResult> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new UserError(`address must be 0x followed by 40 hex digits, got "${address}"`);
  const url = `${baseUrl.replace(/\/+$/, "")}${USDYP_CLAIM_ENDPOINT}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-network": "testnet" },
      body: JSON.stringify({ userAddress: address }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new UserError(`USDyP claim: ${url} did not answer (${(err as Error).message})`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  if (!res.ok) {
    const detail = typeof body === "object" && body !== null && "error" in body ? String(body.error) : text;
    // 409: this address has claimed already; the wallet is connected, so the hint would mislead.
    const hint = res.status === 409 ? "Nothing to do: this address has its USDyP." : NOT_CONNECTED_HINT;
    throw new UserError(`USDyP claim refused (HTTP ${res.status}: ${detail.slice(0, 200)}). ${hint}`);
  }
  return { url, address, status: res.status, body };
}
