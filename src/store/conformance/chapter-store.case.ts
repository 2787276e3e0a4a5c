// The ChapterStore part of every store: chapters written with their video and read back in order, listed across videos,
// ranked by BM25 over title, summary and text, and replaced, kept or removed as commits, write-backs and removals say.

import assert from "node:assert/strict";
import { describe } from "node:test";
import type { Chapter, ClipWriteBack, Store, VideoContent } from "../../spec/index.js";
import { invalidArgument, sampleVideo, query, storeCase, type OpenStore } from "./fixtures.js";

/** The `index`-th chapter of a video whose chapters are `seconds` long each. */
const chapter = (index: number, seconds: number, title: string, summary: string, text: string): Chapter => ({
  index,
  startSecond: index * seconds,
  endSecond: index * seconds + seconds,
  title,
  summary,
  text,
  madeBy: "lite",
});

/**
 * Two videos with chapters, for chapter cases and for comparing stores' scores: "bake" is in a bread chapter's title, in
 * another's text (as "baking"), and in the text of a garden chapter; the other garden chapters are there so that a term
 * in three chapters is rare enough to weigh something (FTS5's idf is floored at 1e-6 for a term in half of them).
 */
export function chapterVideos(): { bread: VideoContent; garden: VideoContent } {
  const bread = sampleVideo("bread", ["flour water yeast", "the loaf in the oven", "slicing and serving"]);
  const garden = sampleVideo("garden", ["planting tomato seedlings", "watering in the morning", "weeding", "pruning", "the harvest"]);
  return {
    bread: {
      ...bread,
      chapters: [
        chapter(0, 60, "Mixing the dough", "Flour, water and yeast are mixed by hand", "we mix the flour and water, then add the yeast and knead"),
        chapter(1, 60, "Bake the loaf", "The loaf goes in the oven for forty minutes", "into the oven at two hundred degrees until it is golden"),
        chapter(2, 60, "Serving", "Slices with butter", "once it cools after baking we slice the bread and serve it with butter"),
      ],
    },
    garden: {
      ...garden,
      chapters: [
        chapter(0, 30, "Planting tomatoes", "Seedlings go in the bed", "dig a hole and plant the tomato seedlings deep"),
        chapter(1, 30, "Watering", "Water early in the morning", "the afternoon sun will bake dry soil, so water the bed every morning"),
        chapter(2, 30, "Weeding", "Pull weeds before they seed", "grab each weed low and pull the root out with it"),
        chapter(3, 30, "Pruning", "Side shoots come off", "pinch the side shoots between the stem and the leaf"),
        chapter(4, 30, "The harvest", "Picking ripe tomatoes", "pick them when they are red and come away easily"),
      ],
    },
  };
}

/** Searches of the chapter fixture, for comparing stores: weights integral and not, a term of two words, a filter. */
export const chapterQueries = [
  query("baking"),
  query("bake water"),
  query("oven loaf yeast flour", { limit: 2 }),
  { terms: [{ text: "water", weight: 0.4 }, { text: "bread", weight: 1.7 }], limit: 10 },
  { terms: [{ text: "the loaf", weight: 1 }, { text: "tomatoes", weight: 2 }], limit: 10 },
  query("bake morning", { videoIds: ["garden", "missing"] }),
];

/** A write-back that changes nothing but, when given, the chapters. */
const writeBack = (videoId: string, chapters?: Chapter[]): ClipWriteBack => ({
  videoId,
  documents: [],
  replaces: [],
  segments: [],
  vectors: [],
  stages: [],
  ...(chapters ? { chapters } : {}),
});

/**
 * Writes the chapter fixture and then changes it as a library does (a write-back with new chapters, a re-commit, a
 * video added and removed): a store's statistics must forget exactly. With `direct`, commits only what is left, as a
 * fresh library would hold it; the two must score every query alike.
 */
export async function churnChapters(store: Store, direct = false): Promise<void> {
  const { bread, garden } = chapterVideos();
  const rewritten = [
    chapter(0, 90, "Bake bread at home", "Dough, a hot oven and patience", "flour water yeast and salt, kneaded and left to rise before we bake"),
    chapter(1, 90, "The crumb", "Cutting the loaf open", "the crumb of the bread shows how well it rose in the oven"),
  ];
  const replanted = (garden.chapters ?? []).slice(1);
  if (direct) {
    await store.commitVideo({ ...bread, chapters: rewritten });
    await store.commitVideo({ ...garden, chapters: replanted });
    return;
  }
  await store.commitVideo(bread);
  await store.commitVideo(garden);
  const extra = sampleVideo("extra", ["bread and butter"]);
  await store.commitVideo({ ...extra, chapters: [chapter(0, 30, "Bread and butter", "Butter on bread", "bake, butter, bread, water")] });
  await store.writeBack(writeBack("bread", rewritten));
  await store.commitVideo({ ...garden, chapters: replanted });
  await store.removeVideo("extra");
}

/** A chapter match or a listed chapter as `video#index`. */
const where = (found: { videoId: string; chapterIndex: number } | (Chapter & { videoId: string })): string =>
  `${found.videoId}#${"chapterIndex" in found ? found.chapterIndex : found.index}`;

export function runChapterStoreConformance(name: string, open: OpenStore): void {
  describe(`ChapterStore: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("a committed video's chapters come back in time order, with every field", async (store) => {
      const { bread } = chapterVideos();
      const chapters = bread.chapters ?? [];
      await store.commitVideo({ ...bread, chapters: [...chapters].reverse() });
      assert.deepEqual(await store.getChapters("bread"), chapters);
      assert.deepEqual(await store.getChapters("missing"), []);
      await store.commitVideo(sampleVideo("plain", ["no chapters here"]));
      assert.deepEqual(await store.getChapters("plain"), [], "a video committed without chapters has none");
    });

    withStore("chapters are listed by video id then time, for every ready video or the ones asked", async (store) => {
      const { bread, garden } = chapterVideos();
      await store.commitVideo(garden);
      await store.commitVideo(bread);
      const all = await store.listChapters();
      assert.deepEqual(all.map(where), ["bread#0", "bread#1", "bread#2", "garden#0", "garden#1", "garden#2", "garden#3", "garden#4"]);
      assert.deepEqual(all[3], { videoId: "garden", ...garden.chapters?.[0] });
      assert.deepEqual((await store.listChapters(["bread", "missing"])).map(where), ["bread#0", "bread#1", "bread#2"]);
      assert.deepEqual(await store.listChapters(["missing"]), []);
      assert.deepEqual(await store.listChapters([]), []);
    });

    withStore("search ranks a chapter titled with the term above one whose text mentions it, stemming the words", async (store) => {
      const { bread, garden } = chapterVideos();
      await store.commitVideo(bread);
      await store.commitVideo(garden);
      const matches = await store.searchChapters(query("baking"));
      assert.deepEqual(matches.map(where).slice(0, 1), ["bread#1"], "the title \"Bake the loaf\" outranks text that says \"baking\"");
      assert.deepEqual(matches.map(where).sort(), ["bread#1", "bread#2", "garden#1"], "\"baking\" finds \"bake\" and \"baking\"");
      assert.deepEqual(
        { videoId: matches[0]?.videoId, chapterIndex: matches[0]?.chapterIndex, startSecond: matches[0]?.startSecond, endSecond: matches[0]?.endSecond },
        { videoId: "bread", chapterIndex: 1, startSecond: 60, endSecond: 120 },
      );
      assert.ok(matches.every((match, at) => match.score > 0 && (at === 0 || (matches[at - 1]?.score ?? 0) >= match.score)), "higher is better");
      assert.deepEqual((await store.searchChapters(query("baking", { limit: 1 }))).map(where), ["bread#1"]);
      assert.deepEqual((await store.searchChapters(query("bake", { videoIds: ["garden"] }))).map(where), ["garden#1"]);
      assert.deepEqual(await store.searchChapters(query("bake", { videoIds: ["missing"] })), []);
      assert.deepEqual((await store.searchChapters(query("seedlings"))).map(where), ["garden#0"], "summary and text count too");
      const yeastOnly = await store.searchChapters({ terms: [{ text: "water", weight: 0 }, { text: "yeast", weight: 1 }], limit: 5 });
      assert.deepEqual(yeastOnly.map(where), ["bread#0"], "a zero weight drops the term");
    });

    withStore("an empty query, a query with no match and a zero limit find nothing; a negative limit is refused", async (store) => {
      await store.commitVideo(chapterVideos().bread);
      assert.deepEqual(await store.searchChapters({ terms: [], limit: 10 }), []);
      assert.deepEqual(await store.searchChapters({ terms: [{ text: " ,. ", weight: 1 }], limit: 10 }), []);
      assert.deepEqual(await store.searchChapters(query("submarine")), []);
      assert.deepEqual(await store.searchChapters(query("bake", { limit: 0 })), []);
      await assert.rejects(store.searchChapters(query("bake", { limit: -1 })), invalidArgument(/limit/));
    });

    withStore("a write-back with chapters replaces them all, and search follows; one without leaves them", async (store) => {
      const { bread } = chapterVideos();
      await store.commitVideo(bread);
      await store.writeBack(writeBack("bread"));
      assert.deepEqual(await store.getChapters("bread"), bread.chapters, "a write-back without chapters leaves them");
      const made = [chapter(0, 90, "Sourdough starter", "Feeding the starter", "a starter of rye flour fed daily"), chapter(1, 90, "Shaping", "Shaping the boule", "fold and shape")];
      await store.writeBack(writeBack("bread", made));
      assert.deepEqual(await store.getChapters("bread"), made);
      assert.deepEqual(await store.searchChapters(query("bake")), [], "the old chapters are no longer found");
      assert.deepEqual((await store.searchChapters(query("sourdough"))).map(where), ["bread#0"]);
      await store.writeBack(writeBack("bread", []));
      assert.deepEqual(await store.getChapters("bread"), [], "an empty list removes them");
      assert.deepEqual(await store.searchChapters(query("sourdough")), []);
    });

    withStore("re-committing the same id replaces its chapters; removing the video removes them", async (store) => {
      const { bread, garden } = chapterVideos();
      await store.commitVideo(bread);
      await store.commitVideo(garden);
      const again = [chapter(0, 60, "Rye bread", "A dense loaf", "rye and caraway")];
      await store.commitVideo({ ...bread, chapters: again });
      assert.deepEqual(await store.getChapters("bread"), again);
      assert.deepEqual((await store.searchChapters(query("bake"))).map(where), ["garden#1"], "the old title is no longer found");
      await store.commitVideo(sampleVideo("bread", ["flour water yeast"]));
      assert.deepEqual(await store.getChapters("bread"), [], "a re-commit without chapters leaves none");
      assert.deepEqual(await store.searchChapters(query("rye")), []);
      assert.equal(await store.removeVideo("garden"), true);
      assert.deepEqual(await store.getChapters("garden"), []);
      assert.deepEqual(await store.listChapters(), []);
      assert.deepEqual(await store.searchChapters(query("bake water tomatoes")), []);
    });

    withStore("a pending video has no chapters; a re-ingest in progress keeps the committed ones", async (store) => {
      await store.saveStage("pending", { stage: "probe", key: "k1", output: null });
      assert.deepEqual(await store.getChapters("pending"), []);
      assert.deepEqual(await store.listChapters(["pending"]), []);
      await assert.rejects(store.writeBack(writeBack("pending", [chapter(0, 60, "Never", "shown", "never")])), (error: { code?: string }) => error.code === "VIDEO_NOT_FOUND");
      assert.deepEqual(await store.searchChapters(query("never")), []);
      const { bread } = chapterVideos();
      await store.commitVideo(bread);
      await store.saveStage("bread", { stage: "probe", key: "k2", output: null });
      assert.deepEqual(await store.getChapters("bread"), bread.chapters);
      assert.deepEqual((await store.searchChapters(query("serving"))).map(where), ["bread#2"]);
    });

    withStore("malformed chapters are refused and nothing of the commit is kept", async (store) => {
      const { bread } = chapterVideos();
      const twice = [chapter(0, 60, "One", "", "one"), chapter(0, 60, "Two", "", "two")];
      await assert.rejects(store.commitVideo({ ...bread, chapters: twice }), invalidArgument(/two chapters with index 0/));
      assert.equal(await store.getVideo("bread"), undefined);
      await store.commitVideo(bread);
      const backwards = [{ ...chapter(0, 60, "Late", "", "late"), startSecond: 50, endSecond: 10 }];
      await assert.rejects(store.writeBack(writeBack("bread", backwards)), invalidArgument(/startSecond/));
      assert.deepEqual(await store.getChapters("bread"), bread.chapters, "the write-back left them as they were");
    });
  });
}
