// espeak-ng voices for the benchmarks that build conversations, checked to be different voices.
//
// espeak-ng 1.51 reads "en-gb+f4" as plain en-gb: a "+variant" after that language name is dropped without a word, so
// four "voices" of the speakers benchmark (en-gb+m2, +edward, +f4, +Annie) were one voice at four pitch offsets.
// "en+f4" applies the variant. The check below catches any such pair before a benchmark counts on them.

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../src/media/index.js";

/**
 * Throws when two of the voices (espeak-ng voice names, variants included) say one sentence with the same samples: one
 * of them is not the voice its name promises.
 */
export async function assertDistinctEspeakVoices(voices: readonly string[]): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "videorag-espeak-"));
  try {
    const byAudio = new Map<string, string>();
    for (const voice of voices) {
      const wavPath = join(folder, "voice.wav");
      await runProcess("espeak-ng", ["-v", voice, "-w", wavPath, "the quick brown fox jumps over the lazy dog"], { installHint: "apt-get install espeak-ng" });
      const hash = createHash("sha1").update(readFileSync(wavPath)).digest("hex");
      const same = byAudio.get(hash);
      if (same !== undefined) throw new Error(`espeak-ng voices ${same} and ${voice} sound the same: one of the names does not select the voice it promises`);
      byAudio.set(hash, voice);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
