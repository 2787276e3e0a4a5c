import { createHash } from "node:crypto";

/**
 * A read a search runs many times: the server parses and plans it once per connection, and then runs it with new values
 * (a few tenths of a millisecond a statement, most of a short statement's time). Named after its text, so two
 * statements cannot share a name.
 */
export function prepared(text: string): { name: string; text: string } {
  return { name: `videorag_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`, text };
}
