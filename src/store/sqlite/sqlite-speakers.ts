// The SQLite store's SpeakerNames: the names a user gives to a ready video's speaker labels (schema version 11), kept
// apart from its segments so that naming re-indexes nothing, and found by name, or by label where a speaker has none,
// through the labels kept beside the segment blocks (`segment_speakers`, written with the segments by sqlite-context.ts).

import type Database from "better-sqlite3";
import { VideoRagError, type SpeakerMatch, type SpeakerNames } from "../../spec/index.js";
import { checkSpeakerNaming, checkSpeakerText, speakerKey, toSpeakerMatch, toSpeakerNames, type SpeakerMatchRow } from "../shared-speaker-rows.js";
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
   * given to its labels, which may now be other voices; from the same source it keeps them.
   */
  keepNamesOfSameSource(videoKey: number, previousFingerprint: string | null, fingerprint: string): void {
    if (previousFingerprint !== fingerprint) this.statements.deleteNames.run(videoKey);
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
}
