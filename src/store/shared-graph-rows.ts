// The knowledge graph's rows as the Store gives them: entities and chunks, read alike on every store.

import type { Chunk, GraphEntity, GraphSource } from "../spec/index.js";
import { isSet, type StoredFlag } from "./shared-catalog-rows.js";

/** An entity's row as both stores keep it. */
export interface EntityRow {
  key: number;
  name_key: string;
  name: string;
  type: string;
  description: string;
  stale: StoredFlag;
  change_sequence: number;
}

/** The entity of a row, with the sources the store read for it. */
export function toGraphEntity(row: EntityRow, sources: GraphSource[]): GraphEntity {
  return {
    key: row.key,
    nameKey: row.name_key,
    name: row.name,
    type: row.type,
    description: row.description,
    descriptionStale: isSet(row.stale),
    changeSequence: row.change_sequence,
    sources,
  };
}

/** A chunk's columns, with its video's id, as a chunk is read. */
export interface ChunkRow {
  video_id: string;
  chunk_index: number;
  clip_start: number;
  clip_end: number;
  start_second: number;
  end_second: number;
  token_count: number;
}

/** The chunk of a row, with its text as read from wherever the store keeps it. */
export function toChunk(row: ChunkRow, text: string): Chunk {
  return {
    videoId: row.video_id,
    index: row.chunk_index,
    clipStart: row.clip_start,
    clipEnd: row.clip_end,
    startSecond: row.start_second,
    endSecond: row.end_second,
    text,
    tokenCount: row.token_count,
  };
}
