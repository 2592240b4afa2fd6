import { afterAll } from "vitest";
import { setLogSink } from "../../src/core/log-sink.ts";
import { logLineProblem } from "./log-scan.ts";

/**
 * Every test file: the structured log lines of the services it runs in-process are collected instead
 * of printed, and when the file ends each must be one JSON object carrying no secret (see log-scan).
 * HL_TEST_LOGS=1 prints them as well.
 */
const lines: string[] = [];
setLogSink({
  write(line) {
    lines.push(line);
    if (process.env.HL_TEST_LOGS) process.stderr.write(line);
  },
});

afterAll(() => {
  const problems = lines.flatMap((line) => {
    const problem = logLineProblem(line);
    return problem ? [`${problem}: ${line.slice(0, 300)}`] : [];
  });
  if (problems.length > 0) throw new Error(`log lines that break the logging rules:\n${problems.join("\n")}`);
});
