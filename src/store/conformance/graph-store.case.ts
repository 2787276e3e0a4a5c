// The GraphStore part of every store: entities and relations merged across videos, sources kept exactly, merge by name vector, entity search, chunks, stale descriptions.

import assert from "node:assert/strict";
import { describe } from "node:test";
import type { VideoContent, VideoGraph } from "../../spec/index.js";
import { sampleVideo, withGraph, invalidArgument, entitySpace, nameVector, query, storeCase, type OpenStore } from "./fixtures.js";

export function runGraphStoreConformance(name: string, open: OpenStore): void {
  describe(`GraphStore: ${name}`, () => {
    const withStore = storeCase(open);

    withStore("an entity named in two videos is one entity, with a source in each, by video then chunk", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("b", ["a storm at sea", "Popeye eats his spinach", "and grows strong"]), [
          { entities: [] },
          {
            clips: [1, 2],
            entities: [["Popeye", "person", "eats spinach to get strong"], ["spinach", "object", "a can of it"]],
            relations: [["Popeye", "spinach", "eats", 8]],
          },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("a", ["popeye the sailor man"]), [{ entities: [["popeye", "Person", "a sailor"]] }]));
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      assert.deepEqual({ ...popeye, key: 0, changeSequence: 0 }, {
        key: 0,
        changeSequence: 0,
        nameKey: "popeye",
        name: "Popeye",
        type: "person",
        description: "",
        descriptionStale: true,
        sources: [
          { videoId: "a", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "a sailor" },
          { videoId: "b", chunkIndex: 1, clipStart: 1, clipEnd: 2, description: "eats spinach to get strong" },
        ],
      });
      assert.deepEqual(await store.getEntity(popeye.key), popeye);
      // The first sources by video and chunk, or none: an entity view of a popular entity, a related entity's name.
      assert.deepEqual(await store.getEntity(popeye.key, { sourceLimit: 1 }), { ...popeye, sources: popeye.sources.slice(0, 1) });
      assert.deepEqual(await store.getEntity("popeye", { sourceLimit: 0 }), { ...popeye, sources: [] });
      assert.deepEqual(await store.getEntity("popeye", { sourceLimit: 5 }), popeye);
      await assert.rejects(store.getEntity("popeye", { sourceLimit: -1 }), { code: "ARGUMENT_INVALID" });
      assert.equal(await store.getEntity("nobody"), undefined);
      assert.equal(await store.getEntity(popeye.key + 1000), undefined);
      assert.deepEqual(await store.graphStats(), { chunks: 3, entities: 2, relations: 1, crossVideoEntities: 1 });
      assert.deepEqual(await store.getChunks([{ videoId: "b", chunkIndex: 1 }, { videoId: "b", chunkIndex: 7 }]), [
        {
          videoId: "b",
          index: 1,
          clipStart: 1,
          clipEnd: 2,
          startSecond: 30,
          endSecond: 90,
          text: "Popeye eats his spinach and grows strong",
          tokenCount: 3,
        },
      ]);
    });

    withStore("removing a video takes its sources; removing the last source takes the entity and its relations", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["popeye and olive"]), [
          {
            entities: [["Popeye", "person", "a sailor"], ["Olive Oyl", "person", "his sweetheart"]],
            relations: [["Popeye", "Olive Oyl", "loves", 9]],
          },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["popeye again"]), [{ entities: [["Popeye", "person", "sails"]] }]));
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      assert.equal(await store.setEntityDescriptions([{ key: popeye.key, description: "A sailor who sails." }]), 1);
      assert.equal((await store.getEntity("popeye"))?.descriptionStale, false);

      assert.equal(await store.removeVideo("a"), true);
      const kept = await store.getEntity("popeye");
      assert.deepEqual(kept?.sources.map((source) => source.videoId), ["b"]);
      assert.equal(kept?.key, popeye.key, "a surviving entity keeps its key");
      assert.equal(kept?.descriptionStale, true, "its sources changed, so its description is stale");
      assert.equal(kept?.description, "A sailor who sails.", "the old description stays until it is synthesised again");
      assert.equal(await store.getEntity("olive oyl"), undefined);
      assert.deepEqual(await store.relationsOf(popeye.key), []);
      assert.deepEqual(await store.searchEntities(query("olive")), []);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 1, relations: 0, crossVideoEntities: 0 });
      await store.commitVideo(withGraph(sampleVideo("c", ["an olive branch"]), [{ entities: [["Olive branch", "object", ""]] }]));
      assert.deepEqual(
        (await store.searchEntities(query("olive oyl", { limit: 1 }))).map((match) => match.name),
        ["Olive branch"],
        "nothing of the removed entity is left to take the only place",
      );
      assert.equal(await store.removeVideo("c"), true);

      assert.equal(await store.removeVideo("b"), true);
      assert.equal(await store.getEntity("popeye"), undefined);
      assert.equal(await store.getEntity(popeye.key), undefined);
      assert.deepEqual(await store.searchEntities(query("popeye sailor")), []);
      assert.deepEqual(await store.staleEntities(10), []);
      assert.equal(await store.setEntityDescriptions([{ key: popeye.key, description: "too late" }]), 0);
      assert.deepEqual(await store.graphStats(), { chunks: 0, entities: 0, relations: 0, crossVideoEntities: 0 });
    });

    withStore("a relation stated in two videos, in either direction, is one relation with the summed strength", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["the fight", "the date"]), [
          {
            entities: [["Popeye", "person", ""], ["Bluto", "person", ""]],
            relations: [["Popeye", "Bluto", "fights", 6], ["Popeye", "Popeye", "talks to himself", 10]],
          },
          {
            entities: [["Popeye", "person", ""], ["Olive Oyl", "person", ""]],
            relations: [["Popeye", "Olive Oyl", "loves", 10]],
          },
        ]),
      );
      await store.commitVideo(
        withGraph(sampleVideo("b", ["the rematch"]), [
          { entities: [["Bluto", "person", ""], ["Popeye", "person", ""]], relations: [["Bluto", "Popeye", "punches", 9]] },
        ]),
      );
      const keyOf = async (name: string): Promise<number> => (await store.getEntity(name))?.key ?? -1;
      const [popeye, bluto, olive] = [await keyOf("popeye"), await keyOf("bluto"), await keyOf("olive oyl")];
      const [fight, love, ...none] = await store.relationsOf(popeye);
      assert.deepEqual(none, [], "talking to oneself is no relation");
      assert.deepEqual(fight, {
        sourceKey: Math.min(popeye, bluto),
        targetKey: Math.max(popeye, bluto),
        description: "punches",
        strength: 15,
        sources: [
          { videoId: "a", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "fights" },
          { videoId: "b", chunkIndex: 0, clipStart: 0, clipEnd: 0, description: "punches" },
        ],
      });
      assert.equal(love?.strength, 10);
      assert.equal(love?.description, "loves");
      assert.ok(fight && love);
      // Its first sources only: description and strength stay those of all of them ("punches" is the second source).
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 1 }), [{ ...fight, sources: fight.sources.slice(0, 1) }, love]);
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 0 }), [{ ...fight, sources: [] }, { ...love, sources: [] }]);
      assert.deepEqual(await store.relationsOf(popeye, 5, { sourceLimit: 3 }), [fight, love]);
      await assert.rejects(store.relationsOf(popeye, 5, { sourceLimit: -1 }), { code: "ARGUMENT_INVALID" });
      assert.equal((await store.relationsOf(popeye, 1)).length, 1);
      assert.deepEqual((await store.relationsOf(olive)).map((relation) => relation.description), ["loves"]);
      assert.deepEqual((await store.relationsAmong([bluto, popeye])).map((relation) => relation.strength), [15]);
      assert.deepEqual(await store.relationsAmong([bluto, olive]), []);
      assert.deepEqual((await store.relationsAmong([olive, bluto, popeye])).map((relation) => relation.description), ["punches", "loves"]);
      assert.equal((await store.graphStats()).relations, 2);

      // Of the sources tied for strongest, the first (by video, then chunk) gives the description, however few are read.
      await store.commitVideo(
        withGraph(sampleVideo("c", ["the wedding"]), [
          { entities: [["Olive Oyl", "person", ""], ["Popeye", "person", ""]], relations: [["Olive Oyl", "Popeye", "marries", 10]] },
        ]),
      );
      const [tied] = await store.relationsOf(olive);
      assert.deepEqual([tied?.description, tied?.strength, tied?.sources.length], ["loves", 20, 2]);
      assert.deepEqual(await store.relationsOf(olive, 5, { sourceLimit: 0 }), [{ ...tied, sources: [] }]);
    });

    withStore("re-committing a video leaves one copy of its sources, and an entity both versions name keeps its key", async (store) => {
      const first = withGraph(sampleVideo("a", ["popeye and olive"]), [
        {
          entities: [["Popeye", "person", "a sailor"], ["Olive Oyl", "person", "his sweetheart"]],
          relations: [["Popeye", "Olive Oyl", "loves", 9]],
        },
      ]);
      await store.commitVideo(first);
      const popeye = await store.getEntity("popeye");
      assert.ok(popeye);
      await store.setEntityDescriptions([{ key: popeye.key, description: "A sailor." }]);
      await store.commitVideo(first);
      const again = await store.getEntity("popeye");
      assert.equal(again?.key, popeye.key);
      assert.equal(again?.description, "A sailor.");
      assert.deepEqual(again?.sources, popeye.sources);
      assert.equal((await store.relationsOf(popeye.key))[0]?.strength, 9, "not 18");
      assert.equal((await store.entityChunks([popeye.key])).length, 1);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 2, relations: 1, crossVideoEntities: 0 });

      await store.commitVideo(withGraph(sampleVideo("a", ["olive alone"]), [{ entities: [["Olive Oyl", "person", "waits"]] }]));
      assert.equal(await store.getEntity("popeye"), undefined, "the new version no longer names Popeye");
      assert.deepEqual((await store.getEntity("olive oyl"))?.sources.map((source) => source.description), ["waits"]);
      assert.deepEqual(await store.graphStats(), { chunks: 1, entities: 1, relations: 0, crossVideoEntities: 0 });
      await store.commitVideo(sampleVideo("a", ["no graph this time"]));
      assert.deepEqual(await store.graphStats(), { chunks: 0, entities: 0, relations: 0, crossVideoEntities: 0 });
    });

    withStore("names of one type whose vectors are within the merge distance become one entity; other types do not", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["bob smith speaks"]), [{ entities: [["Bob Smith", "person", "the speaker"]] }], {
          entityVectors: [nameVector("Bob Smith", [1, 0, 0])],
          entityVectorSpace: entitySpace,
        }),
      );
      await store.commitVideo(
        withGraph(
          sampleVideo("b", ["robert smith at smith hall"]),
          [
            {
              entities: [
                ["Robert Smith", "person", "gives a talk"],
                ["Smith Hall", "location", "where the talk is"],
                ["Rob Smythe", "person", "asks a question"],
              ],
              relations: [["Robert Smith", "Smith Hall", "speaks at", 5]],
            },
          ],
          {
            entityVectors: [
              nameVector("Robert Smith", [0.999, 0.04, 0]),
              nameVector("Smith Hall", [1, 0.01, 0]),
              nameVector("Rob Smythe", [0, 1, 0]),
            ],
            entityVectorSpace: entitySpace,
          },
        ),
      );
      const bob = await store.getEntity("bob smith");
      assert.ok(bob);
      assert.equal((await store.getEntity("robert smith"))?.key, bob.key, "found by the merged name too");
      assert.equal(bob.name, "Bob Smith");
      assert.deepEqual(bob.sources.map((source) => `${source.videoId}: ${source.description}`), [
        "a: the speaker",
        "b: gives a talk",
      ]);
      assert.notEqual((await store.getEntity("smith hall"))?.key, bob.key, "a place is not a person, however close the names");
      assert.equal((await store.getEntity("smith hall"))?.type, "location");
      assert.notEqual((await store.getEntity("rob smythe"))?.key, bob.key, "far vectors do not merge");
      assert.deepEqual(await store.graphStats(), { chunks: 2, entities: 3, relations: 1, crossVideoEntities: 1 });
      assert.deepEqual((await store.searchEntities(query("robert"))).map((match) => match.key), [bob.key], "merged names are searchable");

      // The merged name is remembered: a later video that writes it merges without any vector.
      await store.commitVideo(withGraph(sampleVideo("c", ["robert again"]), [{ entities: [["Robert Smith", "person", "returns"]] }]));
      assert.equal((await store.getEntity("bob smith"))?.sources.length, 3);
      // A tighter merge distance keeps close names apart.
      await store.commitVideo(
        withGraph(sampleVideo("d", ["bobby"]), [{ entities: [["Bobby Smith", "person", ""]] }], {
          entityVectors: [nameVector("Bobby Smith", [0.999, 0.04, 0])],
          entityVectorSpace: entitySpace,
          mergeDistance: 0.0001,
        }),
      );
      assert.notEqual((await store.getEntity("bobby smith"))?.key, bob.key);
    });

    withStore("entities are found by a word of their name and by their synthesised description", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["popeye eats spinach with olive"]), [
          { entities: [["Popeye", "person", ""], ["spinach", "object", ""], ["Olive Oyl", "person", ""]] },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["popeye alone"]), [{ entities: [["Popeye", "person", ""]] }]));
      const key = async (name: string): Promise<number> => (await store.getEntity(name))?.key ?? -1;
      const [olive] = await store.searchEntities(query("olive"));
      assert.deepEqual({ ...olive, score: 0 }, { key: await key("olive oyl"), name: "Olive Oyl", type: "person", description: "", score: 0 });
      assert.ok((olive?.score ?? 0) > 0, "higher is better, so a match scores above zero");
      const spinachDescription = "A leafy green vegetable Popeye eats for strength.";
      await store.setEntityDescriptions([{ key: await key("spinach"), description: spinachDescription }]);
      const [vegetable, ...rest] = await store.searchEntities(query("vegetables"));
      assert.deepEqual([vegetable?.name, vegetable?.description, rest], ["spinach", spinachDescription, []]);
      const names = (found: { name: string }[]) => found.map((match) => match.name);
      assert.deepEqual(names(await store.searchEntities(query("popeye"))), ["Popeye", "spinach"], "a name outweighs a description");
      assert.deepEqual(names(await store.searchEntities({ terms: [{ text: "popeye", weight: 0.5 }], limit: 5 })), ["Popeye", "spinach"]);
      assert.deepEqual(names(await store.searchEntities(query("popeye", { limit: 1 }))), ["Popeye"]);
      assert.deepEqual(names(await store.searchEntities(query("popeye", { videoIds: ["b"] }))), ["Popeye"]);
      assert.deepEqual(await store.searchEntities(query("popeye", { videoIds: ["missing"] })), []);
      assert.deepEqual(await store.searchEntities(query("submarine")), []);
      assert.deepEqual(await store.searchEntities({ terms: [{ text: "?!", weight: 1 }], limit: 5 }), []);
      await assert.rejects(() => store.searchEntities(query("popeye", { limit: -1 })), invalidArgument(/limit/));
    });

    withStore("entity chunks come at most a limit per entity, spread over videos first, and filtered by video", async (store) => {
      await store.commitVideo(
        withGraph(sampleVideo("a", ["one", "two", "three"]), [
          { entities: [["Popeye", "person", ""]] },
          { entities: [["Popeye", "person", ""], ["Olive Oyl", "person", ""]] },
          { entities: [["Popeye", "person", ""]] },
        ]),
      );
      await store.commitVideo(withGraph(sampleVideo("b", ["four"]), [{ entities: [["Popeye", "person", ""]] }]));
      const popeye = (await store.getEntity("popeye"))?.key ?? -1;
      const olive = (await store.getEntity("olive oyl"))?.key ?? -1;
      const chunks = async (keys: number[], options?: { limitPerEntity?: number; videoIds?: string[] }) =>
        (await store.entityChunks(keys, options)).map((row) => `${row.entityKey === popeye ? "P" : "O"} ${row.videoId}/${row.chunkIndex}`);
      assert.deepEqual(await chunks([popeye]), ["P a/0", "P b/0", "P a/1", "P a/2"]);
      assert.deepEqual(await chunks([popeye], { limitPerEntity: 2 }), ["P a/0", "P b/0"]);
      assert.deepEqual((await chunks([popeye, olive], { videoIds: ["a"], limitPerEntity: 1 })).sort(), ["O a/1", "P a/0"]);
      assert.deepEqual(await chunks([popeye], { videoIds: ["b"] }), ["P b/0"]);
      assert.deepEqual(await chunks([]), []);
      await assert.rejects(() => store.entityChunks([popeye], { limitPerEntity: 1.5 }), invalidArgument(/limitPerEntity/));
    });

    withStore("stale entities come oldest change first, and setting a description takes one off the list", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", ""]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Olive Oyl", "person", ""]] }]));
      const stale = async () => (await store.staleEntities(10)).map((entity) => entity.name);
      assert.deepEqual(await stale(), ["Popeye", "Olive Oyl"]);
      assert.deepEqual((await store.staleEntities(1))[0]?.sources.map((source) => source.videoId), ["a"]);
      const popeye = (await store.getEntity("popeye"))?.key ?? -1;
      assert.equal(await store.setEntityDescriptions([{ key: popeye, description: "A sailor." }]), 1);
      assert.deepEqual(await stale(), ["Olive Oyl"]);
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Popeye", "person", ""]] }]));
      assert.deepEqual(await stale(), ["Olive Oyl", "Popeye"], "Popeye changed last");
      assert.equal(await store.setEntityDescriptions([{ key: popeye + 1000, description: "nobody" }]), 0);
    });

    withStore("a description written from sources that changed meanwhile is refused, and the entity stays stale", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", "a sailor"]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Olive Oyl", "person", "his sweetheart"]] }]));
      const [popeye, olive] = await store.staleEntities(10);
      assert.ok(popeye && olive);
      // Another process adds a source to Popeye while this one is describing both.
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Popeye", "person", "eats spinach"]] }]));
      const written = await store.setEntityDescriptions([
        { key: popeye.key, description: "A sailor.", changeSequence: popeye.changeSequence },
        { key: olive.key, description: "His sweetheart.", changeSequence: olive.changeSequence },
      ]);
      assert.equal(written, 1, "only Olive's sources are as they were read");
      assert.deepEqual(
        (await store.staleEntities(10)).map((entity) => [entity.name, entity.description, entity.sources.length]),
        [["Popeye", "", 2]],
      );
      assert.equal((await store.getEntity("olive oyl"))?.description, "His sweetheart.");
      // Described again from both sources, it is accepted.
      const again = await store.getEntity("popeye");
      assert.ok(again && again.changeSequence > popeye.changeSequence, "the change sequence grows with each change");
      assert.equal(await store.setEntityDescriptions([{ key: again.key, description: "A sailor who eats spinach.", changeSequence: again.changeSequence }]), 1);
      assert.deepEqual(await store.staleEntities(10), []);
      await assert.rejects(() => store.setEntityDescriptions([{ key: again.key, description: 7 as unknown as string }]), invalidArgument(/description/));
    });

    withStore("change sequences never go back, even when the entity holding the largest is removed", async (store) => {
      await store.commitVideo(withGraph(sampleVideo("a", ["one"]), [{ entities: [["Popeye", "person", "a sailor"]] }]));
      await store.commitVideo(withGraph(sampleVideo("b", ["two"]), [{ entities: [["Bluto", "person", "a brute"]] }]));
      const bluto = await store.getEntity("bluto");
      assert.ok(bluto);
      await store.removeVideo("b");
      await store.commitVideo(withGraph(sampleVideo("c", ["three"]), [{ entities: [["Olive Oyl", "person", "his sweetheart"]] }]));
      const olive = await store.getEntity("olive oyl");
      assert.ok(olive && olive.changeSequence > bluto.changeSequence, `${olive?.changeSequence} after ${bluto.changeSequence}`);
    });

    withStore("a graph that contradicts itself or the video is ARGUMENT_INVALID, and the commit writes nothing", async (store) => {
      const good = withGraph(sampleVideo("a", ["popeye", "olive"]), [
        { entities: [["Popeye", "person", "a sailor"]] },
        { entities: [["Olive Oyl", "person", ""]] },
      ]);
      await store.commitVideo(good);
      const before = { stats: await store.graphStats(), popeye: await store.getEntity("popeye"), videos: await store.listVideos() };
      const broken = (change: (graph: VideoGraph) => void, id = "a"): VideoContent => {
        const content = withGraph(sampleVideo(id, ["popeye meets bluto", "olive"]), [
          { entities: [["Popeye", "person", "meets Bluto"], ["Bluto", "person", ""]], relations: [["Popeye", "Bluto", "meets", 3]] },
          { entities: [["Olive Oyl", "person", ""]] },
        ]);
        if (content.graph) change(content.graph);
        return content;
      };
      const cases: [string, VideoContent, RegExp][] = [
        ["a relation to a name the chunk does not list", broken((graph) => {
          const relation = graph.extractions[0]?.relations[0];
          if (relation) relation.targetKey = "olive oyl";
        }), /olive oyl.*not among/],
        ["an extraction of a chunk that is not there", broken((graph) => {
          const extraction = graph.extractions[1];
          if (extraction) extraction.chunkIndex = 5;
        }), /chunk 5/],
        ["a chunk over clips the video does not have", broken((graph) => {
          const chunk = graph.chunks[1];
          if (chunk) chunk.clipEnd = 9;
        }), /clips/],
        ["a name listed twice in one chunk", broken((graph) => {
          const extraction = graph.extractions[0];
          if (extraction?.entities[0]) extraction.entities.push(extraction.entities[0]);
        }), /twice/],
        ["entity vectors without their space", broken((graph) => {
          graph.entityVectors = [nameVector("Bluto", [1, 0, 0])];
        }), /entityVectorSpace/],
        ["a relation without a strength", broken((graph) => {
          const relation = graph.extractions[0]?.relations[0];
          if (relation) relation.strength = Number.NaN;
        }), /strength/],
      ];
      for (const [what, content, message] of cases) {
        await assert.rejects(() => store.commitVideo(content), invalidArgument(message), what);
        await assert.rejects(() => store.commitVideo({ ...content, video: { ...content.video, id: "new" } }), invalidArgument(message), what);
        assert.deepEqual(
          { stats: await store.graphStats(), popeye: await store.getEntity("popeye"), videos: await store.listVideos() },
          before,
          `${what}: the old version and the graph are untouched`,
        );
        assert.equal(await store.getEntity("bluto"), undefined, what);
        assert.equal(await store.getVideo("new"), undefined, what);
      }
    });
  });
}
