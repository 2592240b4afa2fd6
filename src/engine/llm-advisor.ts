import type Anthropic from "@anthropic-ai/sdk";
import type { GoogleGenAI } from "@google/genai";
import type OpenAI from "openai";
import { UserError } from "../core/errors.ts";
import { adviceFromToolCalls, LLM_TOOLS } from "../strategies/llm_agent.ts";
import type { Advice, AdviceRequest } from "../strategies/sdk.ts";
import type { Advisor } from "./engine.ts";

/**
 * The llm_agent's advisor port: one single-turn call to Anthropic, OpenAI or Google through their
 * official SDKs, offering the place_order/hold tools and forcing a tool call. The provider comes from
 * LLM_PROVIDER, else the model name (claude… → anthropic, gpt…/o1…/o3…/o4… → openai, gemini… →
 * google); the model from --model, else LLM_MODEL, else the provider's default. LLM_BASE_URL
 * overrides the endpoint (tests point it at a local fake). No retries: a slow or failed call holds.
 */
const LLM_PROVIDERS = ["anthropic", "openai", "google"] as const;
type LlmProvider = (typeof LLM_PROVIDERS)[number];

const DEFAULT_LLM_MODELS: Record<LlmProvider, string> = {
  anthropic: "claude-haiku-4-5",
  openai: "gpt-4o-mini",
  google: "gemini-2.0-flash",
};

const KEY_VARS: Record<LlmProvider, string[]> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
};

type Env = Record<string, string | undefined>;

export function providerForModel(model: string): LlmProvider | undefined {
  const m = model.toLowerCase();
  if (m.startsWith("claude")) return "anthropic";
  if (/^(gpt|o1|o3|o4|chatgpt)/.test(m)) return "openai";
  if (m.startsWith("gemini")) return "google";
  return undefined;
}

interface LlmConfig {
  provider: LlmProvider;
  model: string;
  apiKey: string;
  baseUrl?: string;
  maxTokens: number;
}

/** Resolves provider, model, key and endpoint; a missing key is a UserError naming the variable. */
export function resolveLlmConfig(
  opts: { model?: string; provider?: string; baseUrl?: string },
  env: Env = process.env,
): LlmConfig {
  const model = opts.model ?? env.LLM_MODEL;
  const requested = opts.provider ?? env.LLM_PROVIDER;
  if (requested && !(LLM_PROVIDERS as readonly string[]).includes(requested)) {
    throw new UserError(`unknown LLM provider "${requested}" (expected one of ${LLM_PROVIDERS.join(", ")})`);
  }
  const provider =
    (requested as LlmProvider | undefined) ?? (model ? providerForModel(model) : undefined) ?? "anthropic";
  const apiKey = KEY_VARS[provider].map((k) => env[k]).find((v) => v !== undefined && v !== "");
  if (!apiKey)
    throw new UserError(`llm_agent with provider ${provider} needs ${KEY_VARS[provider].join(" or ")} set`);
  const baseUrl = opts.baseUrl ?? env.LLM_BASE_URL;
  return {
    provider,
    model: model ?? DEFAULT_LLM_MODELS[provider],
    apiKey,
    ...(baseUrl ? { baseUrl } : {}),
    maxTokens: 256,
  };
}

/**
 * Each provider's SDK loads on the advisor's first call: a process that never asks an LLM (every
 * other strategy, the services) does not carry three SDKs.
 */
function onFirstCall<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}

export function createLlmAdvisor(cfg: LlmConfig): Advisor {
  switch (cfg.provider) {
    case "anthropic":
      return anthropicAdvisor(cfg);
    case "openai":
      return openaiAdvisor(cfg);
    case "google":
      return googleAdvisor(cfg);
  }
}

function anthropicAdvisor(cfg: LlmConfig): Advisor {
  const client = onFirstCall(
    async (): Promise<Anthropic> =>
      new (await import("@anthropic-ai/sdk")).default({
        apiKey: cfg.apiKey,
        maxRetries: 0,
        ...(cfg.baseUrl ? { baseURL: cfg.baseUrl } : {}),
      }),
  );
  return async (req: AdviceRequest, signal: AbortSignal): Promise<Advice> => {
    const msg = await (await client()).messages.create(
      {
        model: cfg.model,
        max_tokens: cfg.maxTokens,
        system: req.system,
        messages: [{ role: "user", content: req.user }],
        tools: LLM_TOOLS.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.parameters as unknown as Anthropic.Tool.InputSchema,
        })),
        tool_choice: { type: "any" },
      },
      { signal, timeout: req.timeoutMs },
    );
    return adviceFromToolCalls(
      msg.content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, args: b.input }] : [])),
    );
  };
}

function openaiAdvisor(cfg: LlmConfig): Advisor {
  const client = onFirstCall(
    async (): Promise<OpenAI> =>
      new (await import("openai")).default({
        apiKey: cfg.apiKey,
        maxRetries: 0,
        ...(cfg.baseUrl ? { baseURL: cfg.baseUrl } : {}),
      }),
  );
  return async (req: AdviceRequest, signal: AbortSignal): Promise<Advice> => {
    const r = await (await client()).chat.completions.create(
      {
        model: cfg.model,
        max_completion_tokens: cfg.maxTokens,
        messages: [
          { role: "system", content: req.system },
          { role: "user", content: req.user },
        ],
        tools: LLM_TOOLS.map((t) => ({
          type: "function" as const,
          function: {
            name: t.name,
            description: t.description,
            parameters: t.parameters as unknown as Record<string, unknown>,
          },
        })),
        tool_choice: "required",
      },
      { signal, timeout: req.timeoutMs },
    );
    const calls = r.choices[0]?.message.tool_calls ?? [];
    return adviceFromToolCalls(
      calls.flatMap((c) =>
        c.type === "function" ? [{ name: c.function.name, args: c.function.arguments }] : [],
      ),
    );
  };
}

function googleAdvisor(cfg: LlmConfig): Advisor {
  const sdk = onFirstCall(async () => {
    const genai = await import("@google/genai");
    const ai: GoogleGenAI = new genai.GoogleGenAI({
      apiKey: cfg.apiKey,
      ...(cfg.baseUrl ? { httpOptions: { baseUrl: cfg.baseUrl } } : {}),
    });
    return { ai, anyFunction: genai.FunctionCallingConfigMode.ANY };
  });
  return async (req: AdviceRequest, signal: AbortSignal): Promise<Advice> => {
    const { ai, anyFunction } = await sdk();
    const r = await ai.models.generateContent({
      model: cfg.model,
      contents: req.user,
      config: {
        systemInstruction: req.system,
        maxOutputTokens: cfg.maxTokens,
        tools: [
          {
            functionDeclarations: LLM_TOOLS.map((t) => ({
              name: t.name,
              description: t.description,
              parametersJsonSchema: t.parameters,
            })),
          },
        ],
        toolConfig: { functionCallingConfig: { mode: anyFunction } },
        abortSignal: signal,
      },
    });
    return adviceFromToolCalls(
      (r.functionCalls ?? []).map((c) => ({ name: c.name ?? "", args: c.args ?? {} })),
    );
  };
}
