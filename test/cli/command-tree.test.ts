import { Command } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { GROUPS } from "../../src/cli/groups.ts";

/** The whole `hl` command tree, registered as `hl --help` registers it. */
const program = new Command("hl");
const all: Command[] = [];
const walk = (c: Command) => {
  for (const sub of c.commands) {
    all.push(sub);
    walk(sub);
  }
};
const path = (c: Command): string =>
  c.parent && c.parent !== program ? `${path(c.parent)} ${c.name()}` : c.name();
const find = (words: string) => all.find((c) => path(c) === words);

beforeAll(async () => {
  for (const g of GROUPS) (await g.load()).register(program);
  walk(program);
}, 60_000);

describe("the hl command tree", () => {
  it("describes every command in one style: a capital first letter", () => {
    const lower = all
      .filter((c) => /^[a-z]/.test(c.description()))
      .map((c) => `${path(c)}: ${c.description()}`);
    expect(lower).toEqual([]);
  });

  it("never says a default twice in an option's help", () => {
    const twice = all.flatMap((c) =>
      c.options
        .filter((o) => o.defaultValue !== undefined && /\(default/i.test(o.description))
        .map((o) => `${path(c)} ${o.flags}`),
    );
    expect(twice).toEqual([]);
  });

  it("accepts --data-dir on every command that reads or writes state", () => {
    const stateful = [
      "account",
      "dex status",
      "dex send",
      "dex abstraction",
      "trade",
      "orders",
      "cancel",
      "close",
      "setup check",
      "setup claim-usdyp",
      "builder approve",
      "builder status",
      "agent serve",
      "run",
      "status",
      "journal view",
      "wolf status",
      "howl report",
      "memory list",
      "memory search",
    ];
    const missing = stateful.filter((words) => !find(words)?.options.some((o) => o.long === "--data-dir"));
    expect(missing).toEqual([]);
  });
});
