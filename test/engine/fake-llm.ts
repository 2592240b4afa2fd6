import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * A local stand-in for the three providers' HTTP APIs (Anthropic /v1/messages, OpenAI
 * /v1/chat/completions, Google /v1beta/models/{model}:generateContent). Each request is recorded;
 * `reply` decides the tool call to answer with; `delayMs` slows answers (timeout tests).
 */
export class FakeLlm {
  readonly requests: { path: string; body: Record<string, unknown> }[] = [];
  reply: () => ToolCall = () => ({ name: "hold", args: { reasoning: "nothing to do" } });
  delayMs = 0;
  private server: Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const body = JSON.parse((await readBody(req)) || "{}") as Record<string, unknown>;
      this.requests.push({ path: req.url ?? "", body });
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      if (res.destroyed) return;
      const call = this.reply();
      res.setHeader("content-type", "application/json");
      const path = req.url ?? "";
      if (path.startsWith("/v1/messages")) {
        res.end(
          JSON.stringify({
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: body.model,
            content: [{ type: "tool_use", id: "toolu_1", name: call.name, input: call.args }],
            stop_reason: "tool_use",
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 },
          }),
        );
      } else if (path.startsWith("/v1/chat/completions")) {
        res.end(
          JSON.stringify({
            id: "chatcmpl_1",
            object: "chat.completion",
            created: 1,
            model: body.model,
            choices: [
              {
                index: 0,
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [
                    {
                      id: "call_1",
                      type: "function",
                      function: { name: call.name, arguments: JSON.stringify(call.args) },
                    },
                  ],
                },
                finish_reason: "tool_calls",
              },
            ],
          }),
        );
      } else if (path.includes(":generateContent")) {
        res.end(
          JSON.stringify({
            candidates: [
              {
                content: { role: "model", parts: [{ functionCall: { name: call.name, args: call.args } }] },
                finishReason: "STOP",
              },
            ],
          }),
        );
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
      }
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      data += c;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}
