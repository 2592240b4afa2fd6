import { VenueError } from "../../venue.ts";
import type { InfoHandler } from "./context.ts";

type MarginTables = [number, { description: string; marginTiers: unknown[] }][];

/** marginTable {id}: one of the tables the dexes' `meta` lists, looked up by id. */
export const marginTable: InfoHandler = (c, r) => {
  const id = r.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0)
    throw new VenueError("id must be a non-negative integer");
  for (const d of c.core.dexes) {
    const meta = c.ask({ type: "meta", dex: d.name }) as { marginTables: MarginTables };
    const hit = meta.marginTables.find(([tableId]) => tableId === id);
    if (hit) return hit[1];
  }
  throw new VenueError(`Unknown margin table: ${id}`);
};
