#!/usr/bin/env node
// Runs every colocated *.test.ts with node's own test runner (through tsx), so the summary line is node's.
// Pass file paths or substrings to run a subset: `npm run test:unit -- store`.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.ts")) found.push(relative(root, path));
  }
  return found;
}

const files = findTests(join(root, "src"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exitCode = 1;
} else {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...files],
    { cwd: root, stdio: "inherit" },
  );
  process.exitCode = result.status ?? 1;
}
