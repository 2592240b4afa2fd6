import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { groupsFor } from "../../src/cli/groups.ts";

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as {
  version: string;
};

it("hl --version prints the package's version and registers no command to do it", async () => {
  expect(groupsFor(["node", "hl", "--version"])).toEqual([]);
  expect(groupsFor(["node", "hl", "-V"])).toEqual([]);
  const { stdout } = await promisify(execFile)(process.execPath, [HL, "--version"]);
  expect(stdout).toBe(`${version}\n`);
});
