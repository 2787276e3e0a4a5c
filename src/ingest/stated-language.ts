// The language a user states for the files an ingest is given (`--language`, the HTTP ingest's and the queue job's
// `language`), checked once here so that every face refuses the same words with the same error.

import { VideoRagError } from "../spec/index.js";
import { languageFromTag } from "../text/index.js";

/**
 * The ISO 639-1 code of a stated language: an ISO 639-1 or -2 code, a BCP 47 tag or an English name ("de", "ger",
 * "de-AT", "German"); undefined when none was stated, ARGUMENT_INVALID for words that name no language.
 */
export function statedLanguage(stated: string | undefined): string | undefined {
  if (stated === undefined) return undefined;
  const language = languageFromTag(stated);
  if (!language) throw new VideoRagError("ARGUMENT_INVALID", `"${stated}" names no language videorag knows; give an ISO 639 code such as de, fr or ja`);
  return language;
}
