// The knowledge graph across videos on real media, with the lite extractor: "lifeboats", read from the bitmap subtitles
// of two different releases of the Popeye excerpt (a DVD VobSub track and a Blu-ray PGS track with different lines, each
// OCR'd from its own pictures), becomes one entity with a source in each video; removing one video leaves the other's
// source; removing both leaves nothing. "Popeye" is called only in the VobSub track. The graph retriever finds moments
// through the entities, and says so.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { OpenLibraryAt } from "./library.case.js";
import type { Library } from "./library.js";
import type { Video } from "./spec/index.js";
import { needsShared, sharedPath } from "./test-support/shared.js";

export function graphLibraryCases(name: string, open: OpenLibraryAt): void {
  describe(`one entity across two videos (${name})`, { skip: needsShared }, () => {
    let library: Library;
    const files = ["popeye_vobsub.mkv", "popeye_pgs.mkv", "friday.mp4"];
    let videos: Video[] = [];
    const idOf = (title: string): string => videos.find((video) => video.title === title)?.id ?? "";
    before(async () => {
      library = await open("graph", { speech: false, visual: false });
      const report = await library.ingest(files.map((file) => sharedPath("media/subtitled", file)));
      assert.equal(report.failed, 0, JSON.stringify(report.results));
      for (const result of report.results) assert.match(result.notes.join(" "), /graph: \d+ chunks, \d+ entities/);
      videos = await library.list();
    });
    after(() => library.close());

    test('"lifeboats", read from both videos\' subtitles, is one entity with a source in each and one description', async () => {
      const lifeboat = await library.entity("lifeboats");
      assert.ok(lifeboat, "no entity for lifeboats");
      const videos = new Set(lifeboat.sources.map((source) => source.videoId));
      assert.deepEqual([...videos].sort(), [idOf("popeye_vobsub.mkv"), idOf("popeye_pgs.mkv")].sort());
      assert.ok(lifeboat.description.includes("man the lifeboats") && !lifeboat.descriptionStale, lifeboat.description);
      assert.ok((await library.graphStats()).crossVideoEntities >= 1);
      // Popeye is called for only on the VobSub track ("H-H-Help! P-P-Popeye!"), and the stutter does not split the name.
      assert.deepEqual([...new Set((await library.entity("Popeye"))?.sources.map((source) => source.videoId))], [idOf("popeye_vobsub.mkv")]);
      assert.equal(await library.entity("What"), undefined, "a stuttered question word is no entity");
      assert.ok(!(await library.entity("crown jewels"))?.sources.some((source) => source.videoId !== idOf("friday.mp4")));
    });

    test("the graph mode finds the Popeye moments through the entity and names it", async () => {
      const hits = await library.search("when does someone call for Popeye?", { mode: "graph", limit: 5 });
      assert.ok(hits[0], "no graph hit");
      assert.ok(hits[0].title.startsWith("popeye_"), hits[0].title);
      const found = hits[0].provenance?.find((item) => item.retriever === "graph");
      assert.ok(found?.entities?.some((name) => /popeye/i.test(name)), JSON.stringify(hits[0].provenance));
      assert.ok(!hits.some((hit) => hit.title === "friday.mp4"));
    });

    test("ask --mode graph cites a Popeye moment and tells which retriever found it", async () => {
      // "H-H-Help!" is a cry, not an entity: the graph finds the moment through the lifeboats.
      const answer = await library.ask("who is told to man the lifeboats?", { mode: "graph" });
      assert.equal(answer.mode, "graph");
      assert.ok(answer.citations[0]?.title.startsWith("popeye_"), JSON.stringify(answer.citations[0]));
      assert.ok(answer.moments?.[0]?.provenance?.some((item) => item.retriever === "graph"));
    });

    test("removing one video keeps the entity with only the other video's source; removing both removes it", async () => {
      const before = await library.graphStats();
      const vobsub = idOf("popeye_vobsub.mkv");
      await library.remove(idOf("popeye_pgs.mkv"));
      const lifeboat = await library.entity("lifeboats");
      assert.ok(lifeboat, "the entity survives with its other source");
      assert.deepEqual([...new Set(lifeboat.sources.map((source) => source.videoId))], [vobsub]);
      assert.ok(!lifeboat.descriptionStale && lifeboat.description.length > 0, "re-described after losing a source");
      const after = await library.graphStats();
      assert.equal(after.chunks, before.chunks - 1);
      assert.equal(after.crossVideoEntities, 0);
      await library.remove(vobsub);
      assert.equal(await library.entity("lifeboats"), undefined);
      assert.equal(await library.entity("Popeye"), undefined);
      assert.ok((await library.graphStats()).entities < after.entities);
      assert.ok((await library.graphStats()).entities > 0, "friday.mp4's entities stay");
    });

    test("re-ingesting the removed video adds its graph back without rebuilding the rest", async () => {
      const fridayEntities = (await library.graphStats()).entities;
      const report = await library.ingest([sharedPath("media/subtitled/popeye_pgs.mkv")]);
      assert.equal(report.results[0]?.status, "ingested");
      assert.ok((await library.graphStats()).entities > fridayEntities);
      assert.deepEqual([...new Set((await library.entity("lifeboats"))?.sources.map((source) => source.videoId))], [idOf("popeye_pgs.mkv")]);
    });
  });
}
