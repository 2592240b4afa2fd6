import { requestWeight, responseWeight, type WeightBudget } from "../../exchange/budget.ts";

/**
 * An /info read `hl up` makes itself, spent from `budget` (the weight broker's budget for this API
 * server, which every child reports to) as a child's read is: it waits for its weight and any
 * back-off after a 429, and tells the budget how it was answered, so the IP's whole spending is
 * counted in one place. Without a budget (no broker) it goes out unweighed. Undefined when no answer
 * came within `timeoutMs` (waiting for the weight included) or the answer was not a 200.
 */
export async function postInfo(
  apiUrl: string,
  payload: { type: string } & Record<string, unknown>,
  opts: { budget?: WeightBudget; timeoutMs?: number } = {},
): Promise<unknown> {
  const { budget } = opts;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 2000);
  try {
    await budget?.take(requestWeight("info", payload), { signal });
  } catch {
    return undefined; // no room in time: nothing was spent or sent
  }
  let res: Response;
  try {
    res = await fetch(`${apiUrl}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
      signal,
    });
  } catch {
    budget?.failed();
    return undefined;
  }
  if (res.status === 429) {
    await res.body?.cancel();
    budget?.limited();
    return undefined;
  }
  budget?.answered();
  if (!res.ok) {
    await res.body?.cancel();
    return undefined;
  }
  const body: unknown = await res.json().catch(() => undefined);
  const owed = responseWeight("info", payload, body);
  if (owed > 0) budget?.charge(owed);
  return body;
}
