// An answer's text with each citation marker (`[friday.mp4 0:03–0:04]`, `[meeting.mp4 0:06–0:10 · Sam]`) as a chip
// that plays the cited moment and names who speaks there; when no marker matches a citation, the citations follow the
// text as chips.

import type { Citation } from "../api-types";
import { citationMarker, formatRange } from "../format";

const markerPattern = /\[[^\]\n]*?\d+:\d\d[^\]\n]*\]/g;

export function AnswerText({ text, citations, onPlay }: { text: string; citations: Citation[]; onPlay: (citation: Citation) => void }) {
  const parts = [];
  const shown = new Set<Citation>();
  let last = 0;
  for (const match of text.matchAll(markerPattern)) {
    const index = match.index ?? 0;
    const citation = citationFor(match[0], citations);
    if (!citation) continue;
    shown.add(citation);
    if (index > last) parts.push(text.slice(last, index));
    parts.push(<CitationChip key={index} citation={citation} onPlay={onPlay} />);
    last = index + match[0].length;
  }
  parts.push(text.slice(last));
  const unplaced = shown.size === 0 ? citations : [];
  return (
    <>
      <p class="answer-text">{parts}</p>
      {unplaced.length > 0 && (
        <ul class="citation-list" aria-label="Cited moments">
          {unplaced.map((citation, index) => (
            <li key={index}>
              <CitationChip citation={citation} onPlay={onPlay} /> <q>{citation.quote}</q>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The moment a marker names: its exact marker first, then the same title and times (a model may leave out `~` or the speaker). */
function citationFor(marker: string, citations: Citation[]): Citation | undefined {
  const moment = (text: string) => text.replace(" ~", " ").replace(/ · [^\]]*\]$/, "]");
  return citations.find((citation) => citationMarker(citation) === marker) ?? citations.find((citation) => moment(citationMarker(citation)) === moment(marker));
}

function CitationChip({ citation, onPlay }: { citation: Citation; onPlay: (citation: Citation) => void }) {
  const range = `${citation.timesEstimated ? "~" : ""}${formatRange(citation.startSecond, citation.endSecond)}`;
  return (
    <button
      type="button"
      class="chip citation-chip"
      data-video-id={citation.videoId}
      data-start-second={citation.startSecond}
      data-end-second={citation.endSecond}
      data-speaker={citation.speaker}
      title={citation.speaker ? `${citation.speaker}: ${citation.quote}` : citation.quote}
      aria-label={`Play ${citation.title} ${range}${citation.speaker ? `, ${citation.speaker} speaking` : ""}`}
      onClick={() => onPlay(citation)}
    >
      <span class="play-glyph" aria-hidden="true">
        ▶
      </span>
      {citation.title} <span class="time">{range}</span>
      {citation.speaker && <span class="chip-speaker">· {citation.speaker}</span>}
    </button>
  );
}
