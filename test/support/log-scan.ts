/** What no log line may carry: a URL with its password, a private key, a bearer token, a password parameter. */
const SECRETS: [string, RegExp][] = [
  ["a URL with a password", /[a-z][a-z0-9+.-]*:\/\/[^\s:/@"]*:(?!\*\*\*@)[^\s@/"]+@/i],
  ["a private key", /0x[0-9a-fA-F]{64}/],
  ["a bearer token", /bearer\s+(?!<redacted>)[A-Za-z0-9._~+/=-]{8,}/i],
  ["a password parameter", /\b(password|passwd|pwd)=(?!\*\*\*)[^\s&;"]+/i],
];

/** Why `line` breaks the logging rules (not one JSON object, or a secret in it), or undefined. */
export function logLineProblem(line: string): string | undefined {
  if (!line.endsWith("\n") || line.slice(0, -1).includes("\n")) return "not exactly one line";
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  } catch {
    return "not JSON";
  }
  for (const [what, pattern] of SECRETS) if (pattern.test(line)) return `carries ${what}`;
  return undefined;
}
