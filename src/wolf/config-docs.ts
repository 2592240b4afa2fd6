import { buildWolfConfig, WOLF_PRESET_NAMES, type WolfConfig, wolfConfigSchema } from "./config.ts";

interface WolfConfigKeyDoc {
  key: keyof WolfConfig;
  description: string;
  /** The key's value in each preset (margin_per_slot as given, before it is derived). */
  presets: Record<string, unknown>;
}

/** Every WOLF config key with its meaning and its value per preset, in schema order. */
export function wolfConfigDocs(): WolfConfigKeyDoc[] {
  const configs = Object.fromEntries(
    WOLF_PRESET_NAMES.map((name) => [name, { ...buildWolfConfig(name), margin_per_slot: 0 }] as const),
  );
  return (Object.keys(wolfConfigSchema.shape) as (keyof WolfConfig)[]).map((key) => ({
    key,
    description: wolfConfigSchema.shape[key].description ?? "",
    presets: Object.fromEntries(WOLF_PRESET_NAMES.map((name) => [name, configs[name]![key]])),
  }));
}

const show = (v: unknown) => `\`${JSON.stringify(v)}\``;

/** The markdown table of docs/wolf-config.md: one row per key, preset columns only where they differ. */
export function wolfConfigTable(): string {
  const [base, ...others] = WOLF_PRESET_NAMES;
  const rows = wolfConfigDocs().map((d) => {
    const def = d.presets[base!];
    const cells = others.map((p) =>
      JSON.stringify(d.presets[p]) === JSON.stringify(def) ? "" : show(d.presets[p]),
    );
    return `| \`${d.key}\` | ${show(def)} | ${cells.join(" | ")} | ${d.description.replaceAll("|", "\\|")} |`;
  });
  return [
    `| key | ${base} | ${others.join(" | ")} | meaning |`,
    `|---|---|${others.map(() => "---|").join("")}---|`,
    ...rows,
  ].join("\n");
}
