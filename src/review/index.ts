/** Public surface of the review modules (for MCP tools, the WOLF loop and the CLI). */
export {
  type ParamChange,
  planAutoTune,
  TUNE_BOUNDS,
  TUNE_RULES,
  type TunableConfig,
  type TunePlan,
} from "./autotune.ts";
export { type HowlRunResult, howlHistory, readLatestHowlReport, runHowl } from "./howl.ts";
export type { HowlMetrics } from "./howl-metrics.ts";
export { appendJournalEntry, readJournal, recordClosedPosition } from "./journal.ts";
export { buildJournalEntry, type ClosedPosition, type JournalEntry } from "./journal-entry.ts";
export { latestJudgeReport, runJudge } from "./judge.ts";
export type { JudgeReport } from "./judge-engine.ts";
export {
  appendMemoryEvent,
  MEMORY_EVENT_TYPES,
  type MemoryEvent,
  type MemoryEventType,
  readMemory,
  sessionMemoryEvent,
} from "./memory.ts";
export { runReview } from "./review-hook.ts";
export { readVaultContext } from "./vault.ts";
