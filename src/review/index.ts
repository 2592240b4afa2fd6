/** Public surface of the review modules (for MCP tools, the WOLF loop and the CLI). */
export { readJournal } from "./journal.ts";
export { latestJudgeReport } from "./judge.ts";
export { MEMORY_EVENT_TYPES, readMemory } from "./memory.ts";
export { readVaultContext } from "./vault.ts";
