/** What a route answers: status, headers and the whole body, written in one go. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** Returned by a handler that wrote the response itself (an event stream, a proxied answer). */
export const TAKEN_OVER = Symbol("response taken over");
export type TakenOver = typeof TAKEN_OVER;

export const JSON_TYPE = "application/json; charset=utf-8";

/** `value` as a JSON body. */
export function json(value: unknown, status = 200): Reply {
  return { status, headers: { "content-type": JSON_TYPE }, body: JSON.stringify(value) };
}

/** A body of the given content type, with any extra headers (e.g. cache-control). */
export function send(
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
  status = 200,
): Reply {
  return { status, headers: { "content-type": contentType, ...headers }, body };
}

/** A redirect to `location` (302 Found). */
export function redirect(location: string, status = 302): Reply {
  return { status, headers: { location }, body: "" };
}
