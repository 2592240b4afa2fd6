import { createInterface } from "node:readline/promises";

/** Ask a yes/no question on the terminal; only "y" or "yes" (any case) is a yes. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
