// A video's summary (GET /api/videos/:id/summary): a sentence a line, each with the moment it cites as a time that
// seeks the player; short, medium or long.

import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { Summary, SummaryLength } from "../api-types";
import { formatRange } from "../format";
import { ErrorNotice } from "./error-notice";

const lengths: { value: SummaryLength; label: string }[] = [
  { value: "short", label: "Short" },
  { value: "medium", label: "Medium" },
  { value: "long", label: "Long" },
];

export function VideoSummary({ videoId, onSeek }: { videoId: string; onSeek: (second: number) => void }) {
  const [length, setLength] = useState<SummaryLength>("medium");
  const [summary, setSummary] = useState<Summary>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    const controller = new AbortController();
    setSummary(undefined);
    setError(undefined);
    api<Summary>(`/api/videos/${encodeURIComponent(videoId)}/summary?length=${length}`, { signal: controller.signal }).then(setSummary, (failure: unknown) => {
      if (!controller.signal.aborted) setError(failure);
    });
    return () => controller.abort();
  }, [videoId, length]);

  return (
    <section class="video-section summary" aria-labelledby="summary-title" aria-busy={!summary && error === undefined}>
      <div class="section-head">
        <h2 id="summary-title">Summary</h2>
        <div class="source-filter" role="group" aria-label="Summary length">
          {lengths.map((option) => (
            <button type="button" key={option.value} class="chip toggle" aria-pressed={option.value === length} onClick={() => setLength(option.value)}>
              {option.label}
            </button>
          ))}
        </div>
      </div>
      <div class="section-body">
        {error !== undefined && <ErrorNotice error={error} />}
        {!summary && error === undefined && <p class="muted">Summarizing…</p>}
        {summary && summary.sentences.length === 0 && <p class="muted">{summary.text}</p>}
        {summary && summary.sentences.length > 0 && (
          <ul class="summary-sentences">
            {summary.sentences.map((sentence, index) => (
              <li key={index}>
                {sentence.text}{" "}
                {sentence.citations.map((citation, cited) => {
                  const range = `${citation.timesEstimated ? "~" : ""}${formatRange(citation.startSecond, citation.endSecond)}`;
                  return (
                    <button
                      type="button"
                      key={cited}
                      class="chip citation-chip"
                      data-start-second={citation.startSecond}
                      title={citation.quote}
                      aria-label={`Play from ${range}`}
                      onClick={() => onSeek(citation.startSecond)}
                    >
                      <span class="play-glyph" aria-hidden="true">
                        ▶
                      </span>
                      <span class="time">{range}</span>
                    </button>
                  );
                })}
              </li>
            ))}
          </ul>
        )}
        {summary && (
          <p class="summary-footer muted">
            {summary.madeBy === "lite" ? "Extractive: the video's own words, a sentence or two per chapter." : `Written by ${summary.madeBy}.`}
          </p>
        )}
        {summary && summary.warnings.length > 0 && (
          <ul class="warnings" aria-label="Warnings">
            {summary.warnings.map((warning, index) => (
              <li key={index}>
                <strong>{warning.feature}</strong>: {warning.detail}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
