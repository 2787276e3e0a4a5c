// The SpeakerNames part of the Postgres store: the names a user gives to a ready video's speaker labels (schema 6), kept
// apart from its segments so that naming re-indexes nothing, and found by name, or by label where a speaker has none,
// through the labels kept beside the segment blocks (`segment_speakers`, written with the segments by postgres-context.ts).

import type { PoolClient } from "pg";
import { VideoRagError, type SpeakerMatch, type SpeakerNames, type SpeakerVoices } from "../../spec/index.js";
import {
  checkSpeakerNaming,
  checkSpeakerText,
  checkSpeakerVoices,
  speakerKey,
  toSpeakerMatch,
  toSpeakerNames,
  toSpeakerVoices,
  turnsText,
  vectorOfBytes,
  type SpeakerMatchRow,
  type SpeakerVoiceRow,
} from "../shared-speaker-rows.js";
import type { PostgresContext } from "./postgres-context.js";
import { prepared } from "./prepared.js";

/**
 * Inside a commit's transaction: a video committed again from another source (a new fingerprint) loses the names given
 * to its labels, which may now be other voices, and the voices found in it; from the same source it keeps them.
 */
export async function keepNamesOfSameSource(client: PoolClient, videoKey: number, previousFingerprint: string | null, fingerprint: string): Promise<void> {
  if (previousFingerprint === fingerprint) return;
  await client.query(`DELETE FROM speaker_names WHERE video_key = $1`, [videoKey]);
  await client.query(`DELETE FROM speaker_voices WHERE video_key = $1`, [videoKey]);
}

// Labels are ordered byte by byte (COLLATE "C"), as SQLite orders them, whatever the database's collation.
const namesOf = prepared(
  `SELECT n.label, n.name FROM speaker_names n JOIN videos v ON v.key = n.video_key WHERE v.id = $1 AND v.status = 'ready' ORDER BY n.label COLLATE "C"`,
);
const findSpeakers = prepared(
  `SELECT * FROM (
      SELECT v.id AS video_id, n.label, n.name FROM speaker_names n JOIN videos v ON v.key = n.video_key WHERE n.name_key = $1 AND v.status = 'ready'
      UNION ALL
      SELECT v.id AS video_id, s.label, NULL AS name FROM segment_speakers s JOIN videos v ON v.key = s.video_key
        WHERE s.label_key = $1 AND v.status = 'ready'
          AND NOT EXISTS (SELECT 1 FROM speaker_names n WHERE n.video_key = s.video_key AND n.label = s.label)
    ) found
    ORDER BY video_id COLLATE "C", label COLLATE "C"`,
);

const voicesOf = prepared(
  `SELECT s.label, s.diarized_by, s.turns, s.vector FROM speaker_voices s JOIN videos v ON v.key = s.video_key
    WHERE v.id = $1 AND v.status = 'ready' ORDER BY s.label COLLATE "C"`,
);
const voiceVectors = prepared(
  `SELECT v.id AS video_id, s.label, s.vector FROM speaker_voices s JOIN videos v ON v.key = s.video_key
    WHERE s.vector IS NOT NULL AND v.status = 'ready' ORDER BY v.id COLLATE "C", s.label COLLATE "C"`,
);

/** The SpeakerNames over a shared context. */
export class PostgresSpeakers implements SpeakerNames {
  constructor(private readonly context: PostgresContext) {}

  async speakerNames(videoId: string): Promise<Record<string, string>> {
    return this.context.read("cannot read speaker names", async (client) => toSpeakerNames((await client.query<{ label: string; name: string }>({ ...namesOf, values: [videoId] })).rows));
  }

  async setSpeakerName(videoId: string, label: string, name: string | null): Promise<void> {
    const checkedLabel = checkSpeakerText(label, "label", videoId);
    const checkedName = name === null ? null : checkSpeakerText(name, "name", videoId);
    await this.context.write(`cannot name a speaker of ${videoId}`, async (client) => {
      // The video's row is locked, so a commit or removal of it waits for this name, or this for them.
      const row = (await client.query<{ key: number }>(`SELECT key FROM videos WHERE id = $1 AND status = 'ready' FOR UPDATE`, [videoId])).rows[0];
      if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to name a speaker of`, { subject: videoId });
      if (checkedName === null) {
        await client.query(`DELETE FROM speaker_names WHERE video_key = $1 AND label = $2`, [row.key, checkedLabel]);
        return;
      }
      // A video's speakers: the labels its segments carry, and those named before (a name outlives its label's segments).
      const { rows: labels } = await client.query<{ label: string }>(
        `SELECT label FROM segment_speakers WHERE video_key = $1 UNION SELECT label FROM speaker_names WHERE video_key = $1`,
        [row.key],
      );
      checkSpeakerNaming(videoId, labels.map((entry) => entry.label), checkedLabel, checkedName);
      await client.query(
        `INSERT INTO speaker_names (video_key, label, name, name_key) VALUES ($1, $2, $3, $4)
          ON CONFLICT (video_key, label) DO UPDATE SET name = excluded.name, name_key = excluded.name_key`,
        [row.key, checkedLabel, checkedName, speakerKey(checkedName)],
      );
    });
  }

  async findSpeakers(name: string): Promise<SpeakerMatch[]> {
    const key = speakerKey(String(name));
    if (key === "") return [];
    return this.context.read("cannot find speakers", async (client) => (await client.query<SpeakerMatchRow>({ ...findSpeakers, values: [key] })).rows.map(toSpeakerMatch));
  }

  async speakerVoices(videoId: string): Promise<SpeakerVoices | undefined> {
    return this.context.read("cannot read speaker voices", async (client) => toSpeakerVoices((await client.query<SpeakerVoiceRow>({ ...voicesOf, values: [videoId] })).rows));
  }

  async setSpeakerVoices(videoId: string, voices: SpeakerVoices): Promise<void> {
    checkSpeakerVoices(videoId, voices);
    await this.context.write(`cannot keep the voices of ${videoId}`, async (client) => {
      const row = (await client.query<{ key: number }>(`SELECT key FROM videos WHERE id = $1 AND status = 'ready' FOR UPDATE`, [videoId])).rows[0];
      if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to keep voices of`, { subject: videoId });
      await client.query(`DELETE FROM speaker_voices WHERE video_key = $1`, [row.key]);
      if (voices.voices.length === 0) return;
      await client.query(
        `INSERT INTO speaker_voices (video_key, diarized_by, label, turns, vector) SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::bytea[])`,
        [
          row.key,
          voices.key,
          voices.voices.map((voice) => voice.label),
          voices.voices.map((voice) => turnsText(voice.turns)),
          voices.voices.map((voice) => (voice.vector ? Buffer.from(voice.vector.buffer, voice.vector.byteOffset, voice.vector.byteLength) : null)),
        ],
      );
    });
  }

  async voiceVectors(): Promise<{ videoId: string; label: string; vector: Float32Array }[]> {
    return this.context.read("cannot read voice vectors", async (client) =>
      (await client.query<{ video_id: string; label: string; vector: Buffer }>(voiceVectors)).rows.map((row) => ({ videoId: row.video_id, label: row.label, vector: vectorOfBytes(row.vector) })),
    );
  }
}
