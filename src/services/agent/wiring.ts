import { existsSync } from "node:fs";
import { statusFromKv } from "../../engine/status.ts";
import type { WolfState } from "../../wolf/state.ts";
import { wolfStatus, wolfStatusText } from "../../wolf/status.ts";
import type { SkillInstallResult } from "./server.ts";
import type { StatusMappers, StatusObject } from "./status-reader.ts";
import { HL_BIN } from "./supervisor.ts";

type WolfParse = (raw: unknown) => WolfState | undefined;

/**
 * The real mappings from the trading child's files to the contract's shapes. The WOLF state schema
 * (and the schema library under it) loads only for a WOLF service: a strategy service never reads it.
 */
export async function agentMappers(mode: string): Promise<StatusMappers> {
  // A predecessor's state.json is read too (served before the first run migrates it).
  const parseWolf: WolfParse =
    mode === "wolf"
      ? await import("../../wolf/predecessor.ts").then(
          ({ parseAnyWolfState }) =>
            (raw: unknown) =>
              parseAnyWolfState(raw) ?? undefined,
        )
      : () => undefined;
  return { ...engineMappers, ...wolfMappers(parseWolf) };
}

function wolfMappers(parse: WolfParse): Pick<StatusMappers, "wolf" | "wolfText"> {
  return {
    wolf(raw) {
      const state = parse(raw);
      return state ? (wolfStatus(state) as unknown as StatusObject) : { status: "stopped" };
    },
    wolfText(raw) {
      const state = parse(raw);
      return state ? wolfStatusText(state) : "WOLF state file is unreadable.";
    },
  };
}

const engineMappers: Pick<StatusMappers, "engine" | "engineText"> = {
  engine: (kv) => statusFromKv(kv) as StatusObject,
  engineText(s) {
    if (s.status !== "running") return "Strategy engine stopped.";
    const r = s as Record<string, unknown>;
    return [
      `Strategy ${r.engine} on ${r.instrument}`,
      `Tick ${r.tick_count} | Position ${r.position_qty} | uPnL ${r.unrealized_pnl} | rPnL ${r.realized_pnl}`,
      `Orders ${r.total_orders} | Fills ${r.total_fills}`,
    ].join("\n");
  },
};

/**
 * `/api/skill/install`: verifies that the `hl` launcher is in place and that the trading modules
 * load, and reports the real strategy and MCP tool counts.
 */
export async function skillInstall(): Promise<SkillInstallResult> {
  try {
    if (!existsSync(HL_BIN)) throw new Error(`hl launcher missing at ${HL_BIN}`);
    const { skillInventory } = await import("../../skill/inventory.ts");
    return { installed: true, ...(await skillInventory()) };
  } catch (err) {
    return { installed: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The strategy catalog, imported on first use. */
export async function strategyCatalog(): Promise<unknown> {
  return (await import("../../strategies/catalog.ts")).strategyCatalog();
}
