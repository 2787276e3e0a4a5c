// A Store from its parts: each part is an object implementing one interface of src/spec/store-parts.ts (a class of its
// own file in each store); the Store is their methods, bound, plus `close`. The method lists below are checked against
// the interfaces, so a method added to a part and not listed here is a type error, not a method that silently is not there.

import type { ChapterStore, ExtractionLedger, GraphStore, SpeakerNames, Store, TextIndex, VectorIndex, VideoCatalog } from "../spec/index.js";

const catalogMethods = [
  "listVideos",
  "getVideo",
  "getVideos",
  "getFingerprint",
  "removeVideo",
  "loadStages",
  "saveStage",
  "discardStages",
  "commitVideo",
  "getClips",
  "getSegments",
  "getSegmentRanges",
  "getFrames",
] as const satisfies readonly (keyof VideoCatalog)[];
const textIndexMethods = ["searchClips", "searchVideos", "termDocumentFrequency", "compactTextIndexes"] as const satisfies readonly (keyof TextIndex)[];
const vectorIndexMethods = ["addVectors", "searchVectors", "vectorSpaces", "vectorCount"] as const satisfies readonly (keyof VectorIndex)[];
const graphMethods = [
  "searchEntities",
  "getEntity",
  "entityChunks",
  "relationsAmong",
  "relationsOf",
  "getChunks",
  "staleEntities",
  "setEntityDescriptions",
  "graphStats",
  "videoEntities",
] as const satisfies readonly (keyof GraphStore)[];
const ledgerMethods = ["clipSignals", "markAsked", "clipStages", "writeBack", "refreshStageKey", "extractionStatus"] as const satisfies readonly (keyof ExtractionLedger)[];
const chapterMethods = ["getChapters", "listChapters", "searchChapters"] as const satisfies readonly (keyof ChapterStore)[];
const speakerMethods = ["speakerNames", "setSpeakerName", "findSpeakers", "speakerVoices", "setSpeakerVoices", "voiceVectors"] as const satisfies readonly (keyof SpeakerNames)[];

/** Never, when every method of `Part` is in `Listed`; otherwise the names left out, which fail the check below. */
type Unlisted<Part, Listed extends readonly PropertyKey[]> = Exclude<keyof Part, Listed[number]>;
type Complete<Part, Listed extends readonly PropertyKey[]> = [Unlisted<Part, Listed>] extends [never] ? true : Unlisted<Part, Listed>;
const everyMethodListed: [
  Complete<VideoCatalog, typeof catalogMethods>,
  Complete<TextIndex, typeof textIndexMethods>,
  Complete<VectorIndex, typeof vectorIndexMethods>,
  Complete<GraphStore, typeof graphMethods>,
  Complete<ExtractionLedger, typeof ledgerMethods>,
  Complete<ChapterStore, typeof chapterMethods>,
  Complete<SpeakerNames, typeof speakerMethods>,
] = [true, true, true, true, true, true, true];
void everyMethodListed;

export interface StoreParts {
  catalog: VideoCatalog;
  textIndex: TextIndex;
  vectorIndex: VectorIndex;
  graph: GraphStore;
  ledger: ExtractionLedger;
  chapters: ChapterStore;
  speakers: SpeakerNames;
  close(): Promise<void>;
}

/** The Store whose methods are the parts' own, bound to them. */
export function composeStore(parts: StoreParts): Store {
  const store: Record<string, unknown> = { close: () => parts.close() };
  const bind = <Part extends object>(part: Part, names: readonly (keyof Part & string)[]): void => {
    for (const name of names) {
      const method = part[name];
      if (typeof method !== "function") throw new TypeError(`the store part has no method ${name}`);
      store[name] = (method as (...args: unknown[]) => unknown).bind(part);
    }
  };
  bind(parts.catalog, catalogMethods);
  bind(parts.textIndex, textIndexMethods);
  bind(parts.vectorIndex, vectorIndexMethods);
  bind(parts.graph, graphMethods);
  bind(parts.ledger, ledgerMethods);
  bind(parts.chapters, chapterMethods);
  bind(parts.speakers, speakerMethods);
  return store as unknown as Store;
}

/** Every Store method: the parts' lists (checked complete above) and `close`. */
const storeMethods = [
  ...catalogMethods, ...textIndexMethods, ...vectorIndexMethods, ...graphMethods, ...ledgerMethods, ...chapterMethods, ...speakerMethods, "close",
] as const;

/** True for an object with every Store method (a store injected into a library, built at run time the types cannot check). */
export function isStore(value: unknown): value is Store {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return storeMethods.every((method) => typeof candidate[method] === "function");
}
