/**
 * API wallets ("agents") as Hyperliquid keeps them: per master account one unnamed agent (a new
 * unnamed approval replaces it) and at most MAX_NAMED named ones (approving a name again replaces
 * that agent). A name may carry an expiry, "<name> valid_until <ms>"; past it the agent is gone.
 * Pure bookkeeping on the caller's clock values.
 */
import type { Address } from "../venue.ts";

/** Named agents per master account (the exchange's limit for a master; sub-accounts have 2). */
const MAX_NAMED = 3;
/** Expiry shown for an agent approved without one. */
const NO_EXPIRY = 4_102_444_800_000;

const VALID_UNTIL = /^(.*) valid_until (\d+)$/;

export interface AgentEntry {
  master: Address;
  name: string;
  validUntil: number;
}

interface ListedAgent {
  address: Address;
  name: string;
  validUntil: number;
}

export class AgentRegistry {
  private readonly byAgent = new Map<Address, AgentEntry>();

  /** Split "<name> valid_until <ms>" into the name and its expiry. */
  static parseName(raw: unknown): { name: string; validUntil: number } {
    const text = typeof raw === "string" ? raw : "";
    const m = VALID_UNTIL.exec(text);
    return m ? { name: m[1]!, validUntil: Number(m[2]) } : { name: text, validUntil: NO_EXPIRY };
  }

  /** Approve `agent` for `master`; an error text when the exchange would refuse. */
  approve(master: Address, agent: Address, rawName: unknown, now: number): string | null {
    if (agent === master) return "Cannot approve own address as agent.";
    const current = this.live(agent, now);
    if (current && current.master !== master) return "Agent address is already used by another account.";
    const { name, validUntil } = AgentRegistry.parseName(rawName);
    if (validUntil <= now) return "Agent validUntil must be in the future.";
    const mine = this.list(master, now);
    const sameSlot = mine.find((a) => a.name === name && a.address !== agent);
    const named = mine.filter((a) => a.name !== "" && a.address !== agent);
    if (name !== "" && !sameSlot && named.length >= MAX_NAMED)
      return `Too many named agents. An account may have at most ${MAX_NAMED}.`;
    if (sameSlot) this.byAgent.delete(sameSlot.address);
    this.byAgent.set(agent, { master, name, validUntil });
    return null;
  }

  /** The master an agent signs for, while its approval lasts. */
  masterOf(agent: Address, now: number): Address | undefined {
    return this.live(agent, now)?.master;
  }

  /** A master's agents still in force, in approval order. */
  list(master: Address, now: number): ListedAgent[] {
    const out: ListedAgent[] = [];
    for (const [address, e] of this.byAgent)
      if (e.master === master && e.validUntil > now)
        out.push({ address, name: e.name, validUntil: e.validUntil });
    return out;
  }

  /** Every approval held, for a saved world. */
  entries(): [Address, AgentEntry][] {
    return [...this.byAgent].map(([a, e]) => [a, { ...e }]);
  }

  /** Put saved approvals back (into a fresh registry). */
  restore(entries: readonly [Address, AgentEntry][]): void {
    for (const [a, e] of entries) this.byAgent.set(a, { ...e });
  }

  private live(agent: Address, now: number): AgentEntry | undefined {
    const e = this.byAgent.get(agent);
    if (e && e.validUntil <= now) {
      this.byAgent.delete(agent);
      return undefined;
    }
    return e;
  }
}
