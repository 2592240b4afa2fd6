import type { Command } from "commander";
import { SKILLS } from "../config/skills.ts";

/** `hl skills list`: the agent's skills and the commands that run them. */
export function register(program: Command): void {
  const skills = program
    .command("skills")
    .description("The agent's skills (wolf, dsl, scanner, movers, howl, onboard)");
  skills
    .command("list")
    .description("List the skills and the commands that run them")
    .option("--json", "print JSON for machines")
    .action((opts: { json?: boolean }) => {
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(SKILLS, null, 2)}\n`);
        return;
      }
      const width = Math.max(...SKILLS.map((s) => s.name.length)) + 2;
      for (const s of SKILLS)
        process.stdout.write(`${s.name.padEnd(width)}${s.description}\n${"".padEnd(width)}${s.commands}\n`);
      process.stdout.write(`${SKILLS.length} skill(s) found.\n`);
    });
}
