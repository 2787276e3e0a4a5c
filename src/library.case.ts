// Library cases every store runs: what a user sees after ingest, search, ask and remove on real media from ../shared.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { formatCitation } from "./answer/index.js";
import type { Library, LibraryOptions } from "./library.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

/** Opens a fresh library named `name` (a folder, or a database) with these options. */
export type OpenLibraryAt = (name: string, options?: Omit<LibraryOptions, "path">) => Promise<Library>;

export function subtitledLibraryCases(name: string, open: OpenLibraryAt): void {
  describe(`a library of subtitled videos (${name})`, { skip: needsShared }, () => {
    let library: Library;
    before(async () => {
      library = await open("subtitled");
    });
    after(() => library.close());

    test("friday.mp4 with its .vtt answers 'who is in a bad humor?' citing 0:03–0:04", async () => {
      const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
      assert.equal(report.failed, 0);
      assert.match(report.results[0]?.notes.join(" ") ?? "", /sidecar/);
      const answer = await library.ask("who is in a bad humor?");
      const first = answer.citations[0];
      assert.ok(first, answer.text);
      assert.equal(first.title, "friday.mp4");
      // Its subtitles name no one: the speaker comes from the diarizer, where one runs.
      assert.match(formatCitation(first), /^\[friday\.mp4 0:03–0:04(?: · Speaker \d)?\]$/);
      assert.match(first.quote, /bad humor/);
      assert.match(answer.text, /\[friday\.mp4 0:03–0:04(?: · Speaker \d)?\]/);
      assert.match(answer.profile.summary, /lite/);
    });

    test("re-ingesting the same file does nothing", async () => {
      const report = await library.ingest([sharedPath("media/subtitled/friday.mp4")]);
      assert.equal(report.results[0]?.status, "unchanged");
      assert.equal((await library.list()).length, 1);
    });

    test("a question about something absent says so instead of padding", async () => {
      const answer = await library.ask("how do I replace a bicycle chain?");
      assert.equal(answer.citations.length, 0);
      assert.match(answer.text, /[Nn]othing/);
    });

    // Lines of popeye_p3.eng.srt with their cue starts; the PGS track of the excerpt lacks the buzzard line.
    const cases = [
      { file: "popeye_vobsub.mkv", line: "That's the biggest buzzard I ever saw", cueSecond: 57.012 },
      { file: "popeye_pgs.mkv", line: "Well, that was a nice ship we had once", cueSecond: 50.016 },
    ];
    for (const { file, line, cueSecond } of cases) {
      test(`${file}: bitmap subtitles are read, and "${line}" is found within a second of its cue`, async () => {
        const report = await library.ingest([sharedPath("media/subtitled", file)]);
        assert.equal(report.failed, 0, JSON.stringify(report.results));
        assert.match(report.results[0]?.notes.join(" ") ?? "", /bitmap/);
        const hits = (await library.search(line, { limit: 5 })).filter((hit) => hit.title === file);
        assert.ok(hits[0], "no hit in the video");
        assert.ok(Math.abs(hits[0].startSecond - cueSecond) <= 1, `moment starts at ${hits[0].startSecond}`);
        assert.ok(hits[0].source.includes("subtitle"));
      });
    }

    test("remove takes the video out of list and search", async () => {
      const video = (await library.list()).find((item) => item.title === "popeye_pgs.mkv");
      assert.ok(video);
      await library.remove(video.id);
      assert.ok(!(await library.list()).some((item) => item.id === video.id));
      assert.ok(!(await library.search("nice ship we had once")).some((hit) => hit.videoId === video.id));
    });
  });
}
