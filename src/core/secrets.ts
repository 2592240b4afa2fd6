/**
 * What must never reach a log line, an error body or a console: private keys (32-byte hex), the
 * password of a URL (`postgres://user:secret@host/db` → `postgres://user:***@host/db`), a bearer
 * token, and a `password=` parameter of a connection string.
 */
const PRIVATE_KEY = /0x[0-9a-fA-F]{64}/g;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi;
const BEARER = /\b(bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const PASSWORD_PARAM = /\b(password|passwd|pwd)=[^\s&;]+/gi;

export function scrubSecrets(text: string): string {
  return text
    .replace(PRIVATE_KEY, "0x<redacted>")
    .replace(URL_PASSWORD, "$1:***@")
    .replace(BEARER, "$1<redacted>")
    .replace(PASSWORD_PARAM, "$1=***");
}
