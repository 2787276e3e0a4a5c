#!/usr/bin/env node
// The videorag command: runs the compiled CLI (built by `npm install` through the prepare script, or `npm run build`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  console.error("videorag: not built yet; run `npm run build` in the package folder");
  process.exitCode = 1;
} else {
  const { main } = await import(entry.href);
  await main(process.argv.slice(2));
}
