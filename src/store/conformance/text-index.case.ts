// The TextIndex part of every store: BM25 over clips and whole videos, stemming, term and field weights, phrases, limits and filters.

import assert from "node:assert/strict";
import { describe } from "node:test";
import { sampleVideo, query, storeCase, type OpenStore } from "./fixtures.js";

export function runTextIndexConformance(name: string, open: OpenStore): void {
  describe(`TextIndex: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("search finds the clip that says it, with its video and times, stemming the words", async (store) => {
      await store.commitVideo(sampleVideo("car", ["jack up the car", "we are replacing the brake pads", "put the wheel back"]));
      await store.commitVideo(sampleVideo("garden", ["planting tomato seedlings", "watering the garden beds"]));
      const [best, ...rest] = await store.searchClips(query("replaced brakes"));
      assert.deepEqual(
        { videoId: best?.videoId, clipIndex: best?.clipIndex, startSecond: best?.startSecond, endSecond: best?.endSecond },
        { videoId: "car", clipIndex: 1, startSecond: 30, endSecond: 60 },
      );
      assert.ok((best?.score ?? 0) > 0, "higher is better, so a match scores above zero");
      assert.deepEqual(rest, []);
      assert.deepEqual(await store.searchClips(query("submarine")), []);
      assert.deepEqual((await store.searchVideos(query("garden watering"))).map((match) => match.videoId), ["garden"]);
    });

    withStore("compacting the text indexes after many writes changes no search's results", async (store) => {
      const topics = ["brake pads", "tomato seedlings", "bread dough", "bicycle chain", "paint brushes", "guitar strings"];
      for (let video = 0; video < 12; video++) {
        const topic = topics[video % topics.length] as string;
        await store.commitVideo(sampleVideo(`v${video}`, [`cleaning the ${topic} first`, `video ${video} shows ${topic} and more ${topic}`, "then we wrap up"]));
      }
      const searches = async (): Promise<unknown[]> => [
        ...(await Promise.all(["brake", "tomato cleaning", "guitar strings wrap", "video"].map((text) => store.searchClips(query(text, { limit: 50 }))))),
        await store.searchClips(query("cleaning", { videoIds: ["v1", "v2", "v7"] })),
        await store.searchVideos(query("bread bicycle")),
      ];
      const before = await searches();
      assert.ok(before.every((found) => Array.isArray(found) && found.length > 0));
      await store.compactTextIndexes();
      assert.deepEqual(await searches(), before);
      await store.removeVideo("v3");
      await store.compactTextIndexes();
      // v3 and v9 spoke of the bicycle chain: v3's clips are gone from the compacted index.
      assert.deepEqual((await store.searchClips(query("bicycle"))).map((match) => `${match.videoId}#${match.clipIndex}`), ["v9#1", "v9#0"]);
    });

    withStore("a search within some videos scores their clips and videos as the whole library's search does", async (store) => {
      const topics = ["brake pads", "tomato seedlings", "bread dough", "bicycle chain"];
      for (let video = 0; video < 8; video++) {
        const topic = topics[video % topics.length] as string;
        await store.commitVideo(sampleVideo(`v${video}`, [`cleaning the ${topic} first`, `video ${video} shows ${topic} and more ${topic} ${"then ".repeat(video)}`, "we wrap up"]));
      }
      const within = ["v0", "v3", "v4", "v6", "missing"];
      const scores = (found: { videoId: string; score: number; clipIndex?: number }[]): string[] =>
        found.map((match) => `${match.videoId}#${match.clipIndex ?? ""} ${match.score.toFixed(9)}`);
      for (const words of ["brake cleaning", "bread video more", "wrap", "chain tomato first shows"]) {
        const whole = await store.searchClips(query(words, { limit: 50 }));
        const scoped = await store.searchClips(query(words, { limit: 50, videoIds: within }));
        assert.ok(scoped.length > 0, words);
        assert.deepEqual(scores(scoped), scores(whole.filter((match) => within.includes(match.videoId))), words);
        const wholeVideos = await store.searchVideos(query(words, { limit: 50 }));
        const scopedVideos = await store.searchVideos(query(words, { limit: 50, videoIds: within }));
        assert.deepEqual(scores(scopedVideos), scores(wholeVideos.filter((match) => within.includes(match.videoId))), words);
      }
      // The limit counts the clips of those videos alone.
      assert.equal((await store.searchClips(query("cleaning", { limit: 2, videoIds: within }))).length, 2);
    });

    withStore("a two-character Chinese or Japanese word inside a line is found; a removed line is forgotten", async (store) => {
      await store.commitVideo(sampleVideo("zh", ["我们明天去东京旅行", "今天的天气很好"]));
      await store.commitVideo(sampleVideo("ja", ["東京の天気はどうですか", "明日は雨が降るでしょう"]));
      const found = async (word: string): Promise<string[]> => (await store.searchClips(query(word))).map((match) => `${match.videoId}#${match.clipIndex}`);
      assert.deepEqual(await found("东京"), ["zh#0"], "simplified 东京 inside a line");
      assert.deepEqual(await found("東京"), ["ja#0"], "the traditional form is another word");
      assert.deepEqual((await found("天气")).sort(), ["zh#1"]);
      assert.deepEqual(await found("雨が降る"), ["ja#1"], "a longer word: its pairs in a row");
      assert.deepEqual(await found("降雨"), [], "pairs out of order are another word");
      assert.deepEqual((await store.searchVideos(query("東京"))).map((match) => match.videoId), ["ja"]);
      await store.removeVideo("ja");
      assert.deepEqual(await found("東京"), []);
    });

    withStore("a German video's words are found by their other forms (Häuser, Haus); English ranks as before", async (store) => {
      const german = sampleVideo("de", ["die Häuser am Fluss sind alt", "der Schlüssel liegt auf dem Tisch"]);
      await store.commitVideo({ ...german, video: { ...german.video, language: "de" } });
      await store.commitVideo(sampleVideo("en", ["the houses by the river are old", "the key is on the table"]));
      // The question's language (retrieval identifies it) asks for the German stems too.
      const found = async (word: string, language = "de"): Promise<string[]> =>
        (await store.searchClips({ ...query(word), language })).map((match) => `${match.videoId}#${match.clipIndex}`);
      assert.deepEqual(await found("Haus"), ["de#0"]);
      assert.deepEqual(await found("Häusern"), ["de#0"]);
      assert.deepEqual(await found("Tischen"), ["de#1"], "Tisch, Tische, Tischen: one stem");
      assert.deepEqual(await found("house", "en"), ["en#0"]);
      assert.deepEqual((await store.searchVideos({ ...query("Haus"), language: "de" })).map((match) => match.videoId), ["de"]);
      // Committed again as English, its German stems are forgotten with it: its words are its words again.
      await store.commitVideo({ ...german, video: { ...german.video, language: "en" } });
      assert.deepEqual(await found("Haus"), []);
      assert.deepEqual(await found("Häuser"), ["de#0"]);
    });

    withStore("search ranks clips by BM25, honours the limit and restricts to the given videos", async (store) => {
      await store.commitVideo(sampleVideo("a", ["saw saw saw the plank", "glue", "saw once"]));
      await store.commitVideo(sampleVideo("b", ["a saw and a plank", "nothing here"]));
      const all = await store.searchClips(query("saw plank"));
      assert.equal(all.length, 3);
      assert.ok(all.every((match, index) => index === 0 || (all[index - 1]?.score ?? 0) >= match.score));
      assert.equal((await store.searchClips(query("saw plank", { limit: 1 }))).length, 1);
      const onlyB = await store.searchClips(query("saw", { videoIds: ["b"] }));
      assert.deepEqual(onlyB.map((match) => match.videoId), ["b"]);
      assert.deepEqual(await store.searchClips(query("saw", { videoIds: ["unknown"] })), []);
      assert.deepEqual((await store.searchVideos(query("saw", { videoIds: ["b"] }))).map((match) => match.videoId), ["b"]);
    });

    withStore("term weights decide between clips that each match one term, integral or not", async (store) => {
      await store.commitVideo(sampleVideo("v", ["hammer on the bench", "chisel on the bench"]));
      const ranked = async (hammer: number, chisel: number) =>
        (await store.searchClips({ terms: [{ text: "hammer", weight: hammer }, { text: "chisel", weight: chisel }], limit: 5 }))
          .map((match) => match.clipIndex);
      assert.deepEqual(await ranked(3, 1), [0, 1]);
      assert.deepEqual(await ranked(1, 3), [1, 0]);
      assert.deepEqual(await ranked(0.4, 1.7), [1, 0]);
      assert.deepEqual(await ranked(0, 1), [1], "a zero weight drops the term");
    });

    withStore("screen text is searchable and field weights can turn a channel off", async (store) => {
      await store.commitVideo(sampleVideo("slides", ["welcome everyone", "let us begin"], { screen: ["", "Quarterly revenue"] }));
      assert.equal((await store.searchClips(query("revenue")))[0]?.clipIndex, 1);
      const off = await store.searchClips({ ...query("revenue"), fieldWeights: { transcript: 1, screen: 0, visual: 0 } });
      assert.deepEqual(off, [], "a channel weighted zero brings no hits");
    });

    withStore("a search of visual words alone finds the clips that show them, not those that only say them", async (store) => {
      const street = sampleVideo("street", ["we rode a bicycle to work", "nothing to see", "cars and bicycles"]);
      const clips = street.clips.map((clip, index) => ({ ...clip, visual: index === 1 ? "bicycle (bike) person" : index === 2 ? "car (vehicle)" : "" }));
      await store.commitVideo({ ...street, clips });
      const visualOnly = { transcript: 0, screen: 0, visual: 1 };
      assert.deepEqual((await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => hit.clipIndex), [1]);
      assert.deepEqual((await store.searchVideos({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => hit.videoId), ["street"]);
      assert.deepEqual((await store.searchClips(query("bicycle"))).map((hit) => hit.clipIndex).sort(), [0, 1, 2]);
      await store.removeVideo("street");
      assert.deepEqual(await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly }), []);
      assert.equal((await store.termDocumentFrequency(["bicycle"])).frequencies.get("bicycle"), 0);
    });

    withStore("a visual search in a library without visual words finds the first clip that gains them, and none once it goes", async (store) => {
      const visualOnly = { transcript: 0, screen: 0, visual: 1 };
      await store.commitVideo(sampleVideo("talk", ["we rode a bicycle to work", "a bicycle lane"]));
      assert.deepEqual(await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly }), [], "said, not seen");
      const street = sampleVideo("street", ["nothing said here", "nor here"]);
      await store.commitVideo({ ...street, clips: street.clips.map((clip, index) => ({ ...clip, visual: index === 1 ? "bicycle (bike)" : "" })) });
      assert.deepEqual((await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => `${hit.videoId}#${hit.clipIndex}`), ["street#1"]);
      assert.deepEqual((await store.searchVideos({ ...query("bicycle"), fieldWeights: visualOnly })).map((hit) => hit.videoId), ["street"]);
      await store.removeVideo("street");
      assert.deepEqual(await store.searchClips({ ...query("bicycle"), fieldWeights: visualOnly }), []);
      assert.equal((await store.searchClips(query("bicycle"))).length, 2, "the transcript search is unchanged");
    });

    withStore("a search with a limit or field weight that is not a number ≥ 0 is ARGUMENT_INVALID", async (store) => {
      await store.commitVideo(sampleVideo("v", ["some words"]));
      const invalid = (error: unknown) => (error as { code?: string }).code === "ARGUMENT_INVALID";
      await assert.rejects(() => store.searchClips({ ...query("words"), limit: Number.NaN }), invalid);
      await assert.rejects(() => store.searchVideos({ ...query("words"), limit: -1 }), invalid);
      const fieldWeights = { transcript: Number.POSITIVE_INFINITY, screen: 1, visual: 1 };
      await assert.rejects(() => store.searchClips({ ...query("words"), fieldWeights }), invalid);
      assert.deepEqual(await store.searchClips({ ...query("words"), limit: 0 }), []);
    });

    withStore("a slide shown across clips counts once for its video, not once per clip", async (store) => {
      const slide = "Quarterly revenue";
      await store.commitVideo(sampleVideo("long", ["one", "two", "three", "four"], { screen: [slide, slide, slide, slide] }));
      await store.commitVideo(sampleVideo("short", ["five"], { screen: [slide] }));
      const [first, second] = await store.searchVideos(query("revenue"));
      assert.ok(first && second);
      assert.ok(Math.abs(first.score - second.score) / first.score < 0.5, "equal term frequency, only lengths differ");
    });

    withStore("quoted phrases score extra where the words stand together", async (store) => {
      await store.commitVideo(sampleVideo("v", ["disc brake on the front", "brake fluid and a disc of felt"]));
      const [best] = await store.searchClips({ terms: [], phrases: ["disc brake"], limit: 5 });
      assert.equal(best?.clipIndex, 0);
    });

    withStore("a word most clips hold is left out of a search that has a rarer word, unless the rarer one finds too few", async (store) => {
      // "make" in 1,100 of 1,200 clips: BM25 floors its idf, so it cannot order the clips that hold "pancake".
      const texts = Array.from({ length: 1_200 }, (_, index) => (index < 30 ? `make the pancake batter ${index}` : index < 1_100 ? `make it ${index}` : `stir it ${index}`));
      await store.commitVideo(sampleVideo("v", texts));
      const scores = async (words: string, limit: number): Promise<string[]> =>
        (await store.searchClips(query(words, { limit }))).map((match) => `${match.clipIndex} ${match.score.toFixed(9)}`);
      assert.deepEqual(await scores("make pancake", 10), await scores("pancake", 10), "the same clips, scored as if make were not asked");
      const filled = await store.searchClips(query("make pancake", { limit: 40 }));
      assert.equal(filled.length, 40, "thirty clips hold pancake; make fills the rest");
      assert.deepEqual(new Set(filled.slice(0, 30).map((match) => match.clipIndex)), new Set(Array.from({ length: 30 }, (_, index) => index)));
      assert.ok((filled[0]?.score ?? 0) > Number((await scores("pancake", 1))[0]?.split(" ")[1]), "with make searched, it adds its floored share");
      assert.equal((await store.searchClips(query("make", { limit: 5 }))).length, 5, "a common word alone is searched");
      assert.equal((await store.searchVideos(query("make pancake"))).length, 1);
    });
  });
}
