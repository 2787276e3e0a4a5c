// One video: the player with its subtitles and its chapters marked under it, beside a box to ask about this video,
// its summary, its chapters, who speaks and the text the library indexed for it. A chapter, a summary's or an answer's
// citation and a line of text seek the player; the chapter and the line being played are marked, the line kept in
// view; the text names who speaks, a colour per speaker, and a speaker's name is renamed in place; the entities found
// in the video open their knowledge-graph entry.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, mediaUrls } from "../api";
import type { Chapter, Chapters, Entity, EntityMatch, Segment, SegmentSource, Speaker, Speakers, Transcript, VideoDetail } from "../api-types";
import { ErrorNotice } from "../components/error-notice";
import { ChapterList, ChapterMarks, chapterAt } from "../components/video-chapters";
import { VideoQuestion } from "../components/video-question";
import { SpeakerName, SpeakersPanel, speakerColour, speakerTable } from "../components/video-speakers";
import { VideoSummary } from "../components/video-summary";
import { formatDuration, formatRange, formatTimestamp, languageName, plural, sourceName } from "../format";
import { href } from "../route";
import { usePlayhead } from "../use-playhead";

export function VideoPage({ videoId, second }: { videoId: string; second?: number }) {
  const [detail, setDetail] = useState<VideoDetail>();
  const [transcript, setTranscript] = useState<Transcript>();
  const [entities, setEntities] = useState<EntityMatch[]>();
  const [chapters, setChapters] = useState<Chapter[]>();
  const [speakers, setSpeakers] = useState<Speaker[]>();
  const [error, setError] = useState<unknown>();
  // Held as state: the player appears once the video's details say there is media, and the transcript follows it.
  const [player, setPlayer] = useState<HTMLVideoElement | null>(null);

  useEffect(() => {
    setDetail(undefined);
    setTranscript(undefined);
    setEntities(undefined);
    setChapters(undefined);
    setSpeakers(undefined);
    setError(undefined);
    const id = encodeURIComponent(videoId);
    api<VideoDetail>(`/api/videos/${id}`).then(setDetail, setError);
    api<Transcript>(`/api/videos/${id}/transcript`).then(setTranscript, setError);
    api<Chapters>(`/api/videos/${id}/chapters`).then(
      (reply) => setChapters(reply.chapters),
      () => setChapters([]),
    );
    api<Speakers>(`/api/videos/${id}/speakers`).then(
      (reply) => setSpeakers(reply.speakers),
      () => setSpeakers([]),
    );
    api<{ entities: EntityMatch[] }>(`/api/videos/${id}/entities`).then(
      (reply) => setEntities(reply.entities),
      () => setEntities([]),
    );
  }, [videoId]);

  // A link with ?t= starts there, once the media can seek.
  useEffect(() => {
    const video = player;
    if (!video || second === undefined) return;
    const seek = () => {
      video.currentTime = second;
    };
    if (video.readyState >= HTMLMediaElement.HAVE_METADATA) seek();
    else video.addEventListener("loadedmetadata", seek, { once: true });
    return () => video.removeEventListener("loadedmetadata", seek);
  }, [player, second]);

  const seek = (to: number) => {
    const video = player;
    if (!video) return;
    video.currentTime = to;
    void video.play().catch(() => undefined);
    // On a phone the player is not beside what was clicked: bring it back into view.
    if (video.getBoundingClientRect().bottom < 0) video.scrollIntoView({ block: "start", behavior: "smooth" });
  };
  const playhead = usePlayhead(player);
  const currentChapter = chapters ? chapterAt(chapters, playhead.second) : undefined;
  // The marks line up with the player's own timeline: the media's length once known (a transcode may differ a little).
  const timelineSeconds = Number.isFinite(playhead.durationSeconds) && playhead.durationSeconds > 0 ? playhead.durationSeconds : (detail?.durationSeconds ?? 0);

  const title = detail?.title ?? transcript?.title ?? "Video";
  const playable = detail && detail.kind === "media" && (detail.hasVideo || detail.hasAudio);
  return (
    <section class="page video-page" aria-labelledby="page-title">
      <p class="breadcrumb">
        <a href={href.library()}>Library</a> /
      </p>
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {detail && (
        <p class="video-meta">
          {formatDuration(detail.durationSeconds)} · {plural(detail.clipCount, "clip")}
          {detail.language && (
            <>
              {" · "}
              <span title="Language">{languageName(detail.language)}</span>
            </>
          )}
          {detail.pendingClips > 0 && ` · ${plural(detail.pendingClips, "clip")} pending`}
          {detail.failedClips > 0 && ` · ${detail.failedClips} failed`} · <span class="path">{detail.path}</span>
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {(detail || error === undefined) && (
        <div class="video-layout">
          <div class="video-side">
            {!detail && <div class="main-player" aria-hidden="true" />}
            {detail &&
              (playable ? (
                <div class="player-with-chapters">
                  {/* The tracks come with the login cookie, as the media does. */}
                  <video ref={setPlayer} class="main-player" src={mediaUrls.media(videoId)} controls playsInline preload="metadata">
                    <track kind="subtitles" src={mediaUrls.subtitles(videoId)} srclang={detail.language ?? "en"} label="Indexed text" default />
                    <track kind="chapters" src={mediaUrls.chapters(videoId)} srclang={detail.language ?? "en"} label="Chapters" />
                  </video>
                  {chapters && <ChapterMarks chapters={chapters} durationSeconds={timelineSeconds} second={playhead.second} onSeek={seek} />}
                </div>
              ) : (
                <p class="muted panel">This video is known by its transcript only: there is no media to play.</p>
              ))}
            <Entities entities={entities} videoId={videoId} onSeek={seek} />
          </div>
          <div class="video-main">
            <VideoQuestion videoId={videoId} onSeek={seek} />
            <VideoSummary videoId={videoId} onSeek={seek} />
            {chapters && <ChapterList chapters={chapters} current={player ? currentChapter : undefined} onSeek={seek} />}
            {speakers && speakers.length > 0 && <SpeakersPanel videoId={videoId} speakers={speakers} onRenamed={setSpeakers} onSeek={seek} />}
            {transcript && (
              <TranscriptList videoId={videoId} language={detail?.language} segments={transcript.segments} speakers={speakers ?? []} onRenamed={setSpeakers} player={player} onSeek={seek} />
            )}
          </div>
        </div>
      )}
    </section>
  );
}

function TranscriptList({
  videoId,
  language,
  segments,
  speakers,
  onRenamed,
  player,
  onSeek,
}: {
  videoId: string;
  /** The video's language: lines in another one are marked with theirs. */
  language: string | undefined;
  segments: Segment[];
  /** The video's speakers as they are now: a rename changes the names shown without reading the text again. */
  speakers: readonly Speaker[];
  onRenamed: (speakers: Speaker[]) => void;
  player: HTMLVideoElement | null;
  onSeek: (second: number) => void;
}) {
  const table = useMemo(() => speakerTable(speakers), [speakers]);
  const sources = useMemo(() => [...new Set(segments.map((segment) => segment.source))], [segments]);
  const [hidden, setHidden] = useState<Set<SegmentSource>>(new Set());
  const shown = useMemo(() => segments.filter((segment) => !hidden.has(segment.source)), [segments, hidden]);
  const [active, setActive] = useState<number[]>([]);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const video = player;
    if (!video) return;
    const update = () => {
      const now = video.currentTime;
      // A seek lands on a frame, a few hundredths before the line it was asked for.
      const next = shown.flatMap((segment, index) => (segment.startSecond - 0.05 <= now && now < segment.endSecond ? [index] : []));
      setActive((last) => (last.join() === next.join() ? last : next));
    };
    update();
    video.addEventListener("timeupdate", update);
    video.addEventListener("seeked", update);
    return () => {
      video.removeEventListener("timeupdate", update);
      video.removeEventListener("seeked", update);
    };
  }, [shown, player]);

  // Keep the line being played in view inside the list, without scrolling the page.
  useEffect(() => {
    const list = listRef.current;
    const line = active[0] !== undefined ? list?.children[active[0]] : undefined;
    if (!list || !line || list.scrollHeight <= list.clientHeight) return;
    const lineBox = line.getBoundingClientRect();
    const listBox = list.getBoundingClientRect();
    if (lineBox.top < listBox.top || lineBox.bottom > listBox.bottom) {
      list.scrollBy({ top: lineBox.top - listBox.top - list.clientHeight / 3, behavior: "smooth" });
    }
  }, [active]);

  const toggle = (source: SegmentSource) =>
    setHidden((last) => {
      const next = new Set(last);
      if (next.has(source)) next.delete(source);
      else next.add(source);
      return next;
    });

  return (
    <section class="transcript" aria-labelledby="transcript-title">
      <div class="transcript-head">
        <h2 id="transcript-title">Indexed text</h2>
        {sources.length > 1 && (
          <div class="source-filter" role="group" aria-label="Show sources">
            {sources.map((source) => (
              <button type="button" key={source} class="chip toggle" aria-pressed={!hidden.has(source)} onClick={() => toggle(source)}>
                {sourceName(source)}
              </button>
            ))}
          </div>
        )}
      </div>
      {segments.length === 0 ? (
        <p class="muted">No text was indexed for this video.</p>
      ) : (
        <ol class="transcript-lines" ref={listRef}>
          {shown.map((segment, index) => {
            const label = segment.speaker;
            const known = label !== undefined ? table.get(label) : undefined;
            // Before the speakers list arrives, the name the transcript came with.
            const name = known ? known.name : segment.speakerName;
            const colour = label !== undefined ? speakerColour(known?.index ?? table.size) : undefined;
            // The name is shown where the voice changes: at the first line, and after a line of another (or no) speaker.
            const turn = label !== undefined && shown[index - 1]?.speaker !== label;
            return (
              <li
                key={`${segment.source}-${segment.startSecond}-${index}`}
                class={label !== undefined ? "spoken" : undefined}
                data-speaker={label}
                style={colour ? { "--speaker-colour": colour } : undefined}
              >
                {turn && label !== undefined && colour && (
                  <div class="speaker-turn">
                    <SpeakerName key={`${label}-${name ?? ""}`} videoId={videoId} label={label} name={name} colour={colour} onRenamed={onRenamed} />
                  </div>
                )}
                <button
                  type="button"
                  class="transcript-line"
                  aria-current={active.includes(index) ? "true" : undefined}
                  aria-label={label !== undefined ? `${formatTimestamp(segment.startSecond)} ${name ?? label}: ${segment.text}` : undefined}
                  onClick={() => onSeek(segment.startSecond)}
                >
                  <span class="time">{formatTimestamp(segment.startSecond)}</span>
                  <span class="line-text" lang={segment.language}>{segment.text}</span>
                  {sources.length > 1 && <span class="badge">{sourceName(segment.source)}</span>}
                  {segment.language && segment.language !== language && <span class="badge">{languageName(segment.language)}</span>}
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

function Entities({ entities, videoId, onSeek }: { entities?: EntityMatch[]; videoId: string; onSeek: (second: number) => void }) {
  const [open, setOpen] = useState<{ key: number; entity?: Entity; error?: unknown }>();
  if (!entities || entities.length === 0) return null;

  const show = (key: number) => {
    if (open?.key === key) {
      setOpen(undefined);
      return;
    }
    setOpen({ key });
    api<Entity>(`/api/entities/${key}`).then(
      (entity) => setOpen((last) => (last?.key === key ? { key, entity } : last)),
      (error: unknown) => setOpen((last) => (last?.key === key ? { key, error } : last)),
    );
  };

  return (
    <section class="entities" aria-labelledby="entities-title">
      <h2 id="entities-title">Entities</h2>
      <ul class="entity-chips">
        {entities.map((entity) => (
          <li key={entity.key}>
            <button type="button" class="chip" aria-expanded={open?.key === entity.key} onClick={() => show(entity.key)}>
              {entity.name} <span class="muted">{entity.type.toLowerCase()}</span>
            </button>
          </li>
        ))}
      </ul>
      {open && (
        <div class="entity panel" aria-live="polite">
          {open.error !== undefined && <ErrorNotice error={open.error} />}
          {!open.entity && open.error === undefined && <p class="muted">Loading…</p>}
          {open.entity && <EntityDetail entity={open.entity} videoId={videoId} onSeek={onSeek} />}
        </div>
      )}
    </section>
  );
}

function EntityDetail({ entity, videoId, onSeek }: { entity: Entity; videoId: string; onSeek: (second: number) => void }) {
  return (
    <>
      <h3>
        {entity.name} <span class="muted">{entity.type.toLowerCase()}</span>
      </h3>
      {entity.description && <p>{entity.description}</p>}
      {entity.sources.length > 0 && (
        <>
          <h4>Where it appears</h4>
          <ul class="entity-sources">
            {entity.sources.map((source, index) => {
              const start = source.startSecond;
              const where = start !== undefined ? `${source.title} ${formatRange(start, source.endSecond ?? start)}` : source.title;
              const here = source.videoId === videoId;
              return (
                <li key={index}>
                  {here && start !== undefined ? (
                    <button type="button" class="link-button" onClick={() => onSeek(start)}>
                      {where}
                    </button>
                  ) : here ? (
                    <span>{where}</span>
                  ) : (
                    <a href={href.video(source.videoId, start)}>{where}</a>
                  )}
                  {source.description && <span class="muted">: {clip(source.description, 160)}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {entity.relations.length > 0 && (
        <>
          <h4>Related</h4>
          <ul class="entity-relations">
            {entity.relations.map((relation, index) => (
              <li key={index}>
                {relation.source} → {relation.target}
                {relation.description && <span class="muted">: {relation.description}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function clip(text: string, characters: number): string {
  return text.length > characters ? `${text.slice(0, characters - 1).trimEnd()}…` : text;
}
