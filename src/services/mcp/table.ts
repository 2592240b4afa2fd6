import { z } from "zod";
import { TOOLS } from "./registry.ts";
import type { ToolAnnotations, ToolDef } from "./tool.ts";

interface JsonSchemaProp {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchemaProp[];
  default?: unknown;
}

function typeOf(p: JsonSchemaProp): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (p.anyOf) return p.anyOf.map(typeOf).join(" or ");
  return Array.isArray(p.type) ? p.type.join(" or ") : (p.type ?? "any");
}

/** `name (type, default x)` for each argument, required ones marked. */
function argumentsOf(tool: ToolDef): string {
  const schema = z.toJSONSchema(z.object(tool.input), { io: "input" }) as {
    properties?: Record<string, JsonSchemaProp>;
    required?: string[];
  };
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return "none";
  const required = new Set(schema.required ?? []);
  return props
    .map(([name, p]) => {
      const extra =
        "default" in p ? `, default ${JSON.stringify(p.default)}` : required.has(name) ? ", required" : "";
      return `\`${name}\` (${typeOf(p)}${extra})`;
    })
    .join(", ");
}

const HINTS: [keyof ToolAnnotations, string][] = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

function annotationsOf(tool: ToolDef): string {
  const set = HINTS.filter(([k]) => tool.annotations[k]).map(([, label]) => label);
  return set.length > 0 ? set.join(", ") : "—";
}

/** The description up to the end of its first sentence. */
export function firstSentence(text: string): string {
  const m = /^.*?[.!?](?=\s|$)/s.exec(text);
  return (m ? m[0] : text).replace(/\s+/g, " ").trim();
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

/** The README's tool table (between `<!-- tools:start -->` and `<!-- tools:end -->`), from the registry. */
export function toolTable(tools: readonly ToolDef[] = TOOLS): string {
  const rows = tools.map(
    (t) =>
      `| \`${t.name}\` | ${t.group} | ${argumentsOf(t)} | ${annotationsOf(t)} | ${cell(firstSentence(t.description))} |`,
  );
  return ["| Tool | Group | Arguments | Annotations | Description |", "|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}
