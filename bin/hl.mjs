#!/usr/bin/env node
// The `hl` command. TypeScript sources run through tsx's loader, so a fresh `npm ci` is enough.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
