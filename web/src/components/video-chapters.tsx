// A video's chapters two ways: marks on a timeline under the player, filled as it plays, and a list with each
// chapter's start, title and one-line summary. Either seeks the player to a chapter's start.

import type { Chapter } from "../api-types";
import { formatRange, formatTimestamp } from "../format";

/** The chapter playing at `second`: the last that starts at or before it (a seek lands a few hundredths early). */
export function chapterAt(chapters: readonly Chapter[], second: number): number | undefined {
  let found: number | undefined;
  chapters.forEach((chapter, index) => {
    if (chapter.startSecond - 0.05 <= second) found = index;
  });
  return found;
}

export function ChapterMarks({
  chapters,
  durationSeconds,
  second,
  onSeek,
}: {
  chapters: readonly Chapter[];
  durationSeconds: number;
  second: number;
  onSeek: (second: number) => void;
}) {
  const total = durationSeconds;
  if (chapters.length === 0 || !(total > 0)) return null;
  const share = (seconds: number) => `${Math.min(100, Math.max(0, (seconds / total) * 100))}%`;
  const current = chapterAt(chapters, second);
  const playing = current !== undefined ? chapters[current] : undefined;
  return (
    <div class="chapter-timeline">
      <div class="chapter-marks" role="group" aria-label="Chapters on the timeline">
        {chapters.map((chapter, index) => {
          // A chapter past the media's end (its length rounded differently) stops at the end.
          const length = Math.min(chapter.endSecond, total) - chapter.startSecond;
          const filled = length > 0 ? ((second - chapter.startSecond) / length) * 100 : 0;
          return (
            <button
              type="button"
              key={chapter.index}
              class="chapter-mark"
              style={{ left: share(chapter.startSecond), width: share(length), "--filled": `${Math.min(100, Math.max(0, filled))}%` }}
              data-start-second={chapter.startSecond}
              aria-current={index === current ? "true" : undefined}
              aria-label={`Chapter ${index + 1}: ${chapter.title}, from ${formatTimestamp(chapter.startSecond)}`}
              title={`${formatTimestamp(chapter.startSecond)} ${chapter.title}`}
              onClick={() => onSeek(chapter.startSecond)}
            />
          );
        })}
      </div>
      {playing && current !== undefined && (
        <p class="chapter-now" aria-live="polite">
          <span class="time">{formatTimestamp(playing.startSecond)}</span> {playing.title}{" "}
          <span class="muted">
            · chapter {current + 1} of {chapters.length}
          </span>
        </p>
      )}
    </div>
  );
}

export function ChapterList({ chapters, current, onSeek }: { chapters: readonly Chapter[]; current?: number; onSeek: (second: number) => void }) {
  return (
    <section class="video-section chapters" aria-labelledby="chapters-title">
      <div class="section-head">
        <h2 id="chapters-title">Chapters</h2>
      </div>
      {chapters.length === 0 ? (
        <p class="section-body muted">No chapters: no subtitles, speech or screen text is indexed for this video.</p>
      ) : (
        <ol class="chapter-list">
          {chapters.map((chapter, index) => (
            <li key={chapter.index}>
              <button
                type="button"
                class="chapter-line"
                data-start-second={chapter.startSecond}
                aria-current={index === current ? "true" : undefined}
                aria-label={`Play chapter ${index + 1}, ${chapter.title}, ${formatRange(chapter.startSecond, chapter.endSecond)}`}
                onClick={() => onSeek(chapter.startSecond)}
              >
                <span class="time">{formatTimestamp(chapter.startSecond)}</span>
                <span class="chapter-text">
                  <span class="chapter-title">{chapter.title}</span>
                  {chapter.summary && (
                    <span class="chapter-summary" title={chapter.summary}>
                      {chapter.summary}
                    </span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
