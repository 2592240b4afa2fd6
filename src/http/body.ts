import type { IncomingMessage } from "node:http";
import { HttpError } from "./errors.ts";

/** A request body refused while reading it: the connection is closed after the answer. */
export class BodyError extends HttpError {}

/** The request's media type without parameters, lower-cased ("application/json; charset=utf-8" → "application/json"). */
function mediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const semi = header.indexOf(";");
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
}

function collect(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new BodyError(413, "Request body is too large"));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new BodyError(400, `Request body could not be read: ${err.message}`));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/**
 * The request body: parsed JSON (an empty one is allowed and reads as undefined), text, or undefined
 * when there is none. Any other media type is refused (415), a body over `limit` bytes too (413,
 * before reading when Content-Length announces it), and malformed JSON (400).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const length = req.headers["content-length"];
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (!chunked && (length === undefined || length === "0")) return undefined;
  const type = mediaType(req.headers["content-type"]);
  if (type !== "application/json" && type !== "text/plain")
    throw new BodyError(415, "Unsupported Media Type");
  if (length !== undefined && Number(length) > limit) throw new BodyError(413, "Request body is too large");
  const text = await collect(req, limit);
  if (type === "text/plain") return text;
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, "Invalid JSON body");
  }
}
