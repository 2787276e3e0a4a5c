// The package's own version, read from its package.json (two folders above both src/ files and dist/ files).
import { readFileSync } from "node:fs";

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
