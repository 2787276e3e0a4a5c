// One moment in a list (a search hit, a piece of an answer's evidence): its picture, where it is, its text, and
// with `explain` the retrievers that found it.

import type { Hit, Provenance } from "../api-types";
import { formatRange, formatScore, formatTimestamp, sourceName } from "../format";
import { href } from "../route";
import { Highlighted } from "./highlighted";
import { Thumbnail } from "./thumbnail";

export function MomentCard({
  hit,
  onPlay,
  query,
  explain = false,
}: {
  hit: Hit;
  onPlay: (hit: Hit) => void;
  query?: string;
  explain?: boolean;
}) {
  const range = formatRange(hit.startSecond, hit.endSecond);
  const sources = [...new Set(hit.source.map(sourceName))];
  return (
    <li class="moment" data-video-id={hit.videoId} data-start-second={hit.startSecond}>
      <button class="moment-thumbnail" type="button" tabIndex={-1} aria-hidden="true" onClick={() => onPlay(hit)}>
        <Thumbnail videoId={hit.videoId} second={hit.startSecond} />
        <span class="play-mark">▶</span>
      </button>
      <div class="moment-body">
        <div class="moment-head">
          <button class="moment-title link-button" type="button" onClick={() => onPlay(hit)} aria-label={`Play ${hit.title} ${range}`}>
            {hit.title} <span class="time">{range}</span>
          </button>
        </div>
        <p class="moment-text">{query ? <Highlighted text={hit.text} query={query} /> : hit.text}</p>
        <div class="moment-foot">
          <div class="badges">
            {sources.map((source) => (
              <span class="badge" key={source}>
                {source}
              </span>
            ))}
          </div>
          <a class="quiet-link" href={href.video(hit.videoId, hit.startSecond)}>
            video page
          </a>
        </div>
        {explain && hit.provenance && hit.provenance.length > 0 && (
          <ul class="provenance" aria-label="Found by">
            {hit.provenance.map((found, index) => (
              <li key={index}>{describeProvenance(found)}</li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}

function describeProvenance(found: Provenance) {
  const parts = [`rank ${found.rank}`, `score ${formatScore(found.score)}`];
  if (found.frameSecond !== undefined) parts.push(`frame at ${formatTimestamp(found.frameSecond)}`);
  if (found.entities && found.entities.length > 0) parts.push(`entities: ${found.entities.join(", ")}`);
  if (found.detail) parts.push(found.detail);
  return (
    <>
      <strong>{found.retriever}</strong> {parts.join(" · ")}
    </>
  );
}
