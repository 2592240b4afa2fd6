/**
 * The agent's skills, the predecessor's `skills/*` folders as this project runs them: each is a
 * command group of `hl`, listed by `hl skills list`.
 */
interface Skill {
  name: string;
  description: string;
  /** The commands that run it. */
  commands: string;
}

export const SKILLS: readonly Skill[] = [
  {
    name: "wolf",
    description: "Multi-slot orchestrator: scanner, movers and smart-money entries, DSL-guarded exits",
    commands: "hl wolf run|once|status|presets|config|backtest",
  },
  {
    name: "dsl",
    description: "Dynamic stop-loss: two-phase trailing stop with ROE tiers",
    commands: "hl dsl presets|status|start|simulate",
  },
  {
    name: "scanner",
    description: "Opportunity scanner over every perp",
    commands: "hl scanner once|run|status|presets",
  },
  {
    name: "movers",
    description: "Emerging movers: open interest and volume surges",
    commands: "hl movers once|run|status|presets",
  },
  {
    name: "howl",
    description: "Performance review of the trade logs",
    commands: "hl howl run|report|history",
  },
  {
    name: "onboard",
    description: "First run: wallet, builder fee, testnet USDyP, environment check",
    commands: "hl setup bootstrap|check|claim-usdyp, hl wallet auto, hl builder approve",
  },
];
