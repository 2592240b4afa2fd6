import { z } from "zod";
import { findStrategy, STRATEGY_ALIASES, STRATEGY_IDS, strategyCatalog } from "./catalog.ts";
import type { AnyStrategy, StrategyType } from "./sdk.ts";

/**
 * Every strategy param with its default and its meaning, generated from the strategy files: the
 * defaults are the catalog's and the meanings are the `.describe()` texts of the params schemas.
 * docs/strategies.md and `hl strategies --params` print them from here (a test keeps the page equal).
 */

interface ParamDoc {
  name: string;
  default: number;
  description: string;
}

export interface StrategyParamDocs {
  id: string;
  description: string;
  type: StrategyType;
  /** Other names `hl run` accepts for this strategy. */
  aliases: string[];
  params: ParamDoc[];
}

/** The fields of a strategy's params schema, in declaration order (every params schema is an object). */
export function paramSchemas(s: AnyStrategy): Record<string, z.ZodType> {
  if (!(s.params instanceof z.ZodObject)) throw new Error(`${s.id}: params schema is not a zod object`);
  return s.params.shape as Record<string, z.ZodType>;
}

/** Every strategy in catalog order: description, type, aliases and each param's default and meaning. */
export function strategyParamDocs(): StrategyParamDocs[] {
  const catalog = strategyCatalog().strategies;
  return STRATEGY_IDS.map((id) => {
    const entry = catalog[id]!;
    const schemas = paramSchemas(findStrategy(id)!);
    return {
      id,
      description: entry.description,
      type: entry.type,
      aliases: Object.keys(STRATEGY_ALIASES).filter((alias) => STRATEGY_ALIASES[alias] === id),
      params: Object.entries(entry.params).map(([name, value]) => ({
        name,
        default: value,
        description: schemas[name]?.description ?? "",
      })),
    };
  });
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** docs/strategies.md between its markers: one `### id` section per strategy with its params table. */
export function strategyParamsMarkdown(): string {
  return strategyParamDocs()
    .map((d) => {
      const alias =
        d.aliases.length > 0
          ? ` Also accepted as ${d.aliases.map((a) => `\`${a}\``).join(", ")} (\`hl run ${d.aliases[0]}\` runs \`${d.id}\`).`
          : "";
      return [
        `### ${d.id}`,
        "",
        `${cell(d.description)}. Type: \`${d.type}\`.${alias}`,
        "",
        "| param | default | meaning |",
        "|---|---|---|",
        ...d.params.map(
          (p) => `| \`${p.name}\` | \`${JSON.stringify(p.default)}\` | ${cell(p.description)} |`,
        ),
      ].join("\n");
    })
    .join("\n\n");
}
