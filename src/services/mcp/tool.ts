import type { z } from "zod";

/** MCP safety metadata every tool carries. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

type ToolGroup = "information" | "action" | "context";

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a running tool may use besides its arguments. */
export interface ToolContext {
  signal: AbortSignal;
  progress(p: ToolProgress): void;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  group: ToolGroup;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<unknown>;
}

/** A failure reported to the caller as an MCP tool error (`isError: true`), never as success text. */
export class ToolError extends Error {
  override name = "ToolError";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A result read by people and programs: `text` as the content, `data` as the structured content. */
export class TextAndData {
  constructor(
    readonly text: string,
    readonly data: Record<string, unknown>,
  ) {}
}

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
