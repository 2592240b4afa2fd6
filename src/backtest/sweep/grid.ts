import { D } from "../../core/decimal.ts";
import { UserError } from "../../core/errors.ts";

/** One swept parameter and the values it takes, in the order written. */
export interface SweepAxis {
  name: string;
  values: number[];
}

/** One point of the grid: a value for every swept parameter. */
export type GridPoint = Record<string, number>;

/** Most grid points a sweep may ask for: a typo such as 0..1000:0.001 should not start a million runs. */
export const MAX_GRID_POINTS = 10_000;

const NUMBER = String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?`;
const RANGE = new RegExp(`^(${NUMBER})\\.\\.(${NUMBER}):(${NUMBER})$`);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parse one `--sweep` value: `name=a..b:step` (a, a+step, … up to b inclusive, computed in decimal so
 * 0.1..0.3:0.1 gives exactly 0.1, 0.2, 0.3) or `name=v1,v2,…` (listed values). Bad input is a
 * UserError naming what is wrong.
 */
export function parseSweep(spec: string): SweepAxis {
  const eq = spec.indexOf("=");
  if (eq <= 0) throw new UserError(`--sweep "${spec}": expected name=a..b:step or name=v1,v2`);
  const name = spec.slice(0, eq).trim();
  const body = spec.slice(eq + 1).trim();
  if (!NAME.test(name)) throw new UserError(`--sweep "${spec}": "${name}" is not a parameter name`);
  const range = RANGE.exec(body);
  if (range) {
    const [from, to, step] = [new D(range[1]!), new D(range[2]!), new D(range[3]!)];
    if (!step.gt(0)) throw new UserError(`--sweep ${name}: step must be positive, got ${range[3]}`);
    if (to.lt(from)) throw new UserError(`--sweep ${name}: ${range[2]} is below ${range[1]}`);
    const count = to.minus(from).div(step).floor().plus(1);
    if (count.gt(MAX_GRID_POINTS))
      throw new UserError(`--sweep ${name}: ${count.toFixed()} values, more than ${MAX_GRID_POINTS}`);
    const values: number[] = [];
    for (let v = from; v.lte(to); v = v.plus(step)) values.push(v.toNumber());
    return { name, values };
  }
  const parts = body.split(",").map((p) => p.trim());
  const values = parts.map((p) => {
    if (!new RegExp(`^${NUMBER}$`).test(p))
      throw new UserError(`--sweep ${name}: "${p}" is not a number (expected a..b:step or v1,v2)`);
    return Number(p);
  });
  if (new Set(values).size !== values.length) throw new UserError(`--sweep ${name}: a value is listed twice`);
  return { name, values };
}

/**
 * Every combination of the axes, the first axis varying slowest (so the order is that of nested loops
 * written in the order the sweeps were given). A parameter swept twice or a grid beyond
 * MAX_GRID_POINTS is a UserError.
 */
export function expandGrid(axes: readonly SweepAxis[]): GridPoint[] {
  const names = new Set<string>();
  let size = 1;
  for (const a of axes) {
    if (names.has(a.name)) throw new UserError(`--sweep ${a.name} is given twice`);
    names.add(a.name);
    size *= a.values.length;
  }
  if (size > MAX_GRID_POINTS)
    throw new UserError(`the sweep grid has ${size} points, more than ${MAX_GRID_POINTS}`);
  let points: GridPoint[] = [{}];
  for (const a of axes) {
    const next: GridPoint[] = [];
    for (const p of points) for (const v of a.values) next.push({ ...p, [a.name]: v });
    points = next;
  }
  return axes.length === 0 ? [] : points;
}
