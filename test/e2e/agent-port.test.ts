import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHl } from "../support/hl-process.ts";

describe("hl agent serve on a taken port", () => {
  it("fails with one line naming the port and the flag that changes it, as hl up does", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    const root = mkdtempSync(join(tmpdir(), "hl-agent-port-"));
    try {
      const r = await runHl(["agent", "serve", "--port", String(port), "--host", "127.0.0.1"], {
        ...process.env,
        RUN_MODE: "mcp",
        DATA_DIR: join(root, "data"),
      });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `error: port ${port} (agent service) is already in use; choose another with --port (or PORT)`,
      );
    } finally {
      blocker.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});
