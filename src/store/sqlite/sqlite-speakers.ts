// The SQLite store's SpeakerNames: the names a user gives to a ready video's speaker labels (schema version 11), kept
// apart from its segments so that naming re-indexes nothing, and found by name, or by label where a speaker has none,
// through the labels kept beside the segment blocks (`segment_speakers`, written with the segments by sqlite-context.ts).

import type Database from "better-sqlite3";
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
import { vectorBytes } from "./sqlite-vectors.js";
import type { SqliteContext } from "./sqlite-context.js";

function prepareSpeakerStatements(db: Database.Database) {
  return {
    namesOf: db.prepare(`SELECT n.label, n.name FROM speaker_names n JOIN videos v ON v.key = n.video_key
        WHERE v.id = ? AND v.status = 'ready' ORDER BY n.label`),
    // A video's speakers: the labels its segments carry, and those named before (a name outlives its label's segments).
    labelsOf: db.prepare(`SELECT label FROM segment_speakers WHERE video_key = @videoKey
        UNION SELECT label FROM speaker_names WHERE video_key = @videoKey`).pluck(),
    setName: db.prepare(`INSERT INTO speaker_names (video_key, label, name, name_key) VALUES (?, ?, ?, ?)
        ON CONFLICT (video_key, label) DO UPDATE SET name = excluded.name, name_key = excluded.name_key`),
    clearName: db.prepare(`DELETE FROM speaker_names WHERE video_key = ? AND label = ?`),
    deleteNames: db.prepare(`DELETE FROM speaker_names WHERE video_key = ?`),
    find: db.prepare(`SELECT v.id AS video_id, n.label, n.name FROM speaker_names n JOIN videos v ON v.key = n.video_key
          WHERE n.name_key = @key AND v.status = 'ready'
        UNION ALL
        SELECT v.id AS video_id, s.label, NULL AS name FROM segment_speakers s JOIN videos v ON v.key = s.video_key
          WHERE s.label_key = @key AND v.status = 'ready'
            AND NOT EXISTS (SELECT 1 FROM speaker_names n WHERE n.video_key = s.video_key AND n.label = s.label)
        ORDER BY video_id, label`),
    voicesOf: db.prepare(`SELECT s.label, s.diarized_by, s.turns, s.vector FROM speaker_voices s JOIN videos v ON v.key = s.video_key
        WHERE v.id = ? AND v.status = 'ready' ORDER BY s.label`),
    deleteVoices: db.prepare(`DELETE FROM speaker_voices WHERE video_key = ?`),
    insertVoice: db.prepare(`INSERT INTO speaker_voices (video_key, label, diarized_by, turns, vector) VALUES (?, ?, ?, ?, ?)`),
    vectors: db.prepare(`SELECT v.id AS video_id, s.label, s.vector FROM speaker_voices s JOIN videos v ON v.key = s.video_key
        WHERE s.vector IS NOT NULL AND v.status = 'ready' ORDER BY v.id, s.label`),
  };
}

/** Names of ready videos' speakers (SpeakerNames), and what a commit does to them inside its transaction. */
export class SqliteSpeakers implements SpeakerNames {
  private readonly statements;

  constructor(private readonly context: SqliteContext) {
    this.statements = prepareSpeakerStatements(context.db);
  }

  /**
   * Inside a commit's transaction: a video committed again from another source (a new fingerprint) loses the names
   * given to its labels, which may now be other voices, and the voices found in it; from the same source it keeps them.
   */
  keepNamesOfSameSource(videoKey: number, previousFingerprint: string | null, fingerprint: string): void {
    if (previousFingerprint === fingerprint) return;
    this.statements.deleteNames.run(videoKey);
    this.statements.deleteVoices.run(videoKey);
  }

  async speakerNames(videoId: string): Promise<Record<string, string>> {
    return this.context.guard("cannot read speaker names", () => toSpeakerNames(this.statements.namesOf.all(videoId) as { label: string; name: string }[]));
  }

  async setSpeakerName(videoId: string, label: string, name: string | null): Promise<void> {
    const checkedLabel = checkSpeakerText(label, "label", videoId);
    const checkedName = name === null ? null : checkSpeakerText(name, "name", videoId);
    this.context.guard(`cannot name a speaker of ${videoId}`, () =>
      this.context.db.transaction(() => {
        const row = this.context.readyRow(videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to name a speaker of`, { subject: videoId });
        if (checkedName === null) {
          this.statements.clearName.run(row.key, checkedLabel);
          return;
        }
        checkSpeakerNaming(videoId, this.statements.labelsOf.all({ videoKey: row.key }) as string[], checkedLabel, checkedName);
        this.statements.setName.run(row.key, checkedLabel, checkedName, speakerKey(checkedName));
      }).immediate(),
    );
  }

  async findSpeakers(name: string): Promise<SpeakerMatch[]> {
    const key = speakerKey(String(name));
    if (key === "") return [];
    return this.context.guard("cannot find speakers", () => (this.statements.find.all({ key }) as SpeakerMatchRow[]).map(toSpeakerMatch));
  }

  async speakerVoices(videoId: string): Promise<SpeakerVoices | undefined> {
    return this.context.guard("cannot read speaker voices", () => toSpeakerVoices(this.statements.voicesOf.all(videoId) as SpeakerVoiceRow[]));
  }

  async setSpeakerVoices(videoId: string, voices: SpeakerVoices): Promise<void> {
    checkSpeakerVoices(videoId, voices);
    this.context.guard(`cannot keep the voices of ${videoId}`, () =>
      this.context.db.transaction(() => {
        const row = this.context.readyRow(videoId);
        if (!row) throw new VideoRagError("VIDEO_NOT_FOUND", `no video ${videoId} to keep voices of`, { subject: videoId });
        this.statements.deleteVoices.run(row.key);
        for (const voice of voices.voices) {
          this.statements.insertVoice.run(row.key, voice.label, voices.key, turnsText(voice.turns), voice.vector ? vectorBytes(voice.vector) : null);
        }
      }).immediate(),
    );
  }

  async voiceVectors(): Promise<{ videoId: string; label: string; vector: Float32Array }[]> {
    return this.context.guard("cannot read voice vectors", () =>
      (this.statements.vectors.all() as { video_id: string; label: string; vector: Buffer }[]).map((row) => ({ videoId: row.video_id, label: row.label, vector: vectorOfBytes(row.vector) })),
    );
  }
}
