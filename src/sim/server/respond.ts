import type { IncomingMessage, ServerResponse } from "node:http";

/** Small response helpers for the sim world's node:http server (kept tiny: it is on the hot path). */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Authorization",
};
const CORS_LIST = Object.entries(CORS).flat();

/** The headers of a JSON answer of `length` bytes as a flat [name, value, …] list, built once per body. */
export function jsonHeaders(length: number): string[] {
  return ["Content-Type", "application/json", "Content-Length", String(length), ...CORS_LIST];
}

/** Write a pre-rendered answer (bytes and their header list) with status 200. */
export function sendPrepared(
  res: ServerResponse,
  answer: { bytes: Buffer; headers: readonly string[] },
): void {
  res.writeHead(200, answer.headers as string[]);
  res.end(answer.bytes);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendRawJson(res, status, JSON.stringify(body) ?? "null");
}

export function sendRawJson(res: ServerResponse, status: number, json: string): void {
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(json),
    ...CORS,
  });
  res.end(json);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...CORS,
  });
  res.end(text);
}

export function sendBytes(res: ServerResponse, status: number, bytes: Uint8Array, contentType: string): void {
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": bytes.byteLength, ...CORS });
  res.end(bytes);
}

export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, CORS);
  res.end();
}

export class BodyTooLarge extends Error {}

/** Read a request body as UTF-8 text, refusing more than `limit` bytes. */
export function readBody(req: IncomingMessage, limit = 1_048_576): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyTooLarge(`request body larger than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });
}
