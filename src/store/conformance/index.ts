// The shared Store test suite, split by part: every Store implementation (SQLite, Postgres) runs every part's cases, so
// ingest and retrieval can rely on one behaviour whatever the backend, and a third store, or a part moved to another
// engine, is implemented and tested part by part.

import { describe } from "node:test";
import { runChapterStoreConformance } from "./chapter-store.case.js";
import { runExtractionLedgerConformance } from "./extraction-ledger.case.js";
import type { OpenStore } from "./fixtures.js";
import { runGraphStoreConformance } from "./graph-store.case.js";
import { runSpeakerNamesConformance } from "./speaker-names.case.js";
import { runTextIndexConformance } from "./text-index.case.js";
import { runVectorIndexConformance } from "./vector-index.case.js";
import { runVideoCatalogConformance } from "./video-catalog.case.js";

export { chapterQueries, chapterVideos, churnChapters } from "./chapter-store.case.js";
export { checkKeptVideoList } from "./video-catalog.case.js";
export { lexicalScores, query, sampleVideo, unspacedLibrary, withGraph, type OpenStore, type SampleChunk } from "./fixtures.js";
export {
  runChapterStoreConformance,
  runExtractionLedgerConformance,
  runGraphStoreConformance,
  runSpeakerNamesConformance,
  runTextIndexConformance,
  runVectorIndexConformance,
  runVideoCatalogConformance,
};

/** Every part's cases, on a fresh store from `open` each. */
export function runStoreConformance(name: string, open: OpenStore): void {
  describe(`Store conformance: ${name}`, () => {
    runVideoCatalogConformance(name, open);
    runTextIndexConformance(name, open);
    runVectorIndexConformance(name, open);
    runGraphStoreConformance(name, open);
    runExtractionLedgerConformance(name, open);
    runChapterStoreConformance(name, open);
    runSpeakerNamesConformance(name, open);
  });
}
