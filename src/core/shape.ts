/**
 * Checks of a parsed JSON value against a declared shape, giving a typed copy of it. A few lines of
 * plain functions instead of a schema library, for the readers that must stay light (the agent
 * service validates the WOLF state file on every write of its trader): zod costs that process
 * about 7 MB of memory.
 *
 * A shape returns the checked value (objects are copied with their declared keys only) or throws a
 * ShapeError naming the first field that does not fit.
 */
type Path = readonly (string | number)[];
export type Shape<T> = (value: unknown, path: Path) => T;

class ShapeError extends Error {
  constructor(
    readonly path: Path,
    readonly expected: string,
  ) {
    super(`${path.join(".")}: expected ${expected}`);
  }
}

export type Checked<T> = { ok: true; value: T } | { ok: false; path: Path; expected: string };

/** The checked value, or the first misfit as `{path, expected}`. */
export function check<T>(shape: Shape<T>, value: unknown): Checked<T> {
  try {
    return { ok: true, value: shape(value, []) };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, path: err.path, expected: err.expected };
    throw err;
  }
}

export const string =
  (pattern?: RegExp): Shape<string> =>
  (v, path) => {
    if (typeof v !== "string") throw new ShapeError(path, "a string");
    if (pattern && !pattern.test(v)) throw new ShapeError(path, `a string matching ${pattern}`);
    return v;
  };

export const boolean: Shape<boolean> = (v, path) => {
  if (typeof v !== "boolean") throw new ShapeError(path, "a boolean");
  return v;
};

/** A finite number; `int` means a safe integer. */
export const number =
  (rules: { int?: boolean; min?: number; max?: number; positive?: boolean } = {}): Shape<number> =>
  (v, path) => {
    if (typeof v !== "number" || !Number.isFinite(v)) throw new ShapeError(path, "a number");
    if (rules.int && !Number.isSafeInteger(v)) throw new ShapeError(path, "an integer");
    if (rules.min !== undefined && v < rules.min) throw new ShapeError(path, `a number >= ${rules.min}`);
    if (rules.max !== undefined && v > rules.max) throw new ShapeError(path, `a number <= ${rules.max}`);
    if (rules.positive && v <= 0) throw new ShapeError(path, "a number > 0");
    return v;
  };

/** One of the listed values, compared with `===`. */
export const oneOf =
  <const T extends readonly (string | number)[]>(...values: T): Shape<T[number]> =>
  (v, path) => {
    if (!values.includes(v as T[number]))
      throw new ShapeError(path, `one of ${values.map((x) => JSON.stringify(x)).join("|")}`);
    return v as T[number];
  };

/** Absent (undefined) or the shape. */
export const optional =
  <T>(shape: Shape<T>): Shape<T | undefined> =>
  (v, path) =>
    v === undefined ? undefined : shape(v, path);

/** Absent: `fallback`; otherwise the shape. */
export const withDefault =
  <T>(shape: Shape<T>, fallback: T): Shape<T> =>
  (v, path) =>
    v === undefined ? fallback : shape(v, path);

export const nullable =
  <T>(shape: Shape<T>): Shape<T | null> =>
  (v, path) =>
    v === null ? null : shape(v, path);

export const arrayOf =
  <T>(item: Shape<T>): Shape<T[]> =>
  (v, path) => {
    if (!Array.isArray(v)) throw new ShapeError(path, "an array");
    return v.map((x, i) => item(x, [...path, i]));
  };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An object with any keys (a copy of it). */
export const anyObject: Shape<Record<string, unknown>> = (v, path) => {
  if (!isPlainObject(v)) throw new ShapeError(path, "an object");
  return { ...v };
};

/**
 * An object with the declared fields, each checked in turn. The copy keeps only those fields, or,
 * `loose`, every other key as it was too.
 */
export function object<T extends object>(
  fields: { [K in keyof T]-?: Shape<T[K]> },
  opts: { loose?: boolean } = {},
): Shape<T> {
  const entries = Object.entries(fields) as [string, Shape<unknown>][];
  return (v, path) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ShapeError(path, "an object");
    const input = v as Record<string, unknown>;
    const out: Record<string, unknown> = opts.loose ? { ...input } : {};
    for (const [key, shape] of entries) {
      const value = shape(input[key], [...path, key]);
      if (value !== undefined) out[key] = value;
      else if (opts.loose) delete out[key];
    }
    return out as T;
  };
}
