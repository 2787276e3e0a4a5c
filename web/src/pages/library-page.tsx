// Library: the videos with a picture, length, the sources their text came from and their deferred work; the topics
// they fall into; adding videos by upload (or drag and drop) or by a path on the server, with each job's progress;
// removing a video.

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, uploadFiles } from "../api";
import type { Job, Topic, Video, VideoDetail } from "../api-types";
import { ErrorNotice } from "../components/error-notice";
import { JobCard, type TrackedJob } from "../components/job-card";
import { Thumbnail } from "../components/thumbnail";
import { formatDuration, languageName, plural, sourceName } from "../format";
import { href } from "../route";

let nextKey = 0;

export function LibraryPage() {
  const [videos, setVideos] = useState<Video[]>();
  const [error, setError] = useState<unknown>();
  const [jobs, setJobs] = useState<TrackedJob[]>([]);

  const refresh = useCallback(() => {
    api<{ videos: Video[] }>("/api/videos").then(
      (reply) => {
        setVideos(reply.videos);
        setError(undefined);
      },
      setError,
    );
  }, []);

  useEffect(() => {
    refresh();
    // Jobs started elsewhere (another tab, before a reload) are shown too.
    api<{ jobs: Job[] }>("/api/jobs").then(
      ({ jobs: running }) =>
        setJobs((mine) => [
          ...mine,
          ...running
            .filter((job) => job.status === "queued" || job.status === "running")
            .filter((job) => !mine.some((tracked) => tracked.jobId === job.id))
            .map((job) => ({ key: `job-${job.id}`, names: job.inputs, jobId: job.id })),
        ]),
      () => undefined,
    );
  }, [refresh]);

  const track = (job: TrackedJob) => setJobs((all) => [job, ...all]);
  const change = (key: string, patch: Partial<TrackedJob>) => setJobs((all) => all.map((job) => (job.key === key ? { ...job, ...patch } : job)));
  const dismiss = (key: string) => setJobs((all) => all.filter((job) => job.key !== key));

  const upload = async (files: File[], incremental: boolean) => {
    if (files.length === 0) return;
    const key = `upload-${nextKey++}`;
    track({ key, names: files.map((file) => file.name), uploadFraction: 0 });
    try {
      const { jobId } = await uploadFiles(files, { incremental, onProgress: (uploadFraction) => change(key, { uploadFraction }) });
      change(key, { jobId, uploadFraction: 1 });
    } catch (failure) {
      change(key, { error: failure });
    }
  };

  const addPath = async (path: string, incremental: boolean) => {
    const key = `path-${nextKey++}`;
    track({ key, names: [path] });
    try {
      const { jobId } = await api<{ jobId: string }>("/api/ingest", { method: "POST", body: { paths: [path], ...(incremental ? { incremental } : {}) } });
      change(key, { jobId });
    } catch (failure) {
      change(key, { error: failure });
    }
  };

  const remove = async (video: Video) => {
    if (!confirm(`Remove ${video.title} from the library? Its index is deleted; the file itself is kept.`)) return;
    try {
      await api(`/api/videos/${encodeURIComponent(video.id)}`, { method: "DELETE" });
      refresh();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Library
      </h1>
      <AddVideos onUpload={upload} onPath={addPath} />
      {jobs.length > 0 && (
        <ul class="jobs" aria-label="Ingest jobs">
          {jobs.map((job) => (
            <JobCard key={job.key} tracked={job} onChange={refresh} onDismiss={() => dismiss(job.key)} />
          ))}
        </ul>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {videos && videos.length === 0 && <p class="empty muted">No videos yet: add some above, then ask them questions.</p>}
      {videos && videos.length > 0 && <Topics videos={videos} />}
      {videos && videos.length > 0 && (
        <>
          <h2 class="section-title">
            {plural(videos.length, "video")}
            <span class="muted"> · {formatDuration(videos.reduce((sum, video) => sum + video.durationSeconds, 0))} in all</span>
          </h2>
          <ul class="video-grid" aria-label="Videos">
            {videos.map((video) => (
              <VideoCard key={`${video.id}-${video.ingestedAt}-${video.pendingClips}`} video={video} onRemove={() => remove(video)} />
            ))}
          </ul>
        </>
      )}
      {!videos && error === undefined && <p class="muted">Loading the library…</p>}
    </section>
  );
}

/** The library's topics, read again whenever the list of videos changes. */
function Topics({ videos }: { videos: Video[] }) {
  const [topics, setTopics] = useState<Topic[]>();
  const key = videos.map((video) => `${video.id}@${video.ingestedAt}`).join(",");
  useEffect(() => {
    api<{ topics: Topic[] }>("/api/topics").then(
      (reply) => setTopics(reply.topics),
      () => setTopics([]),
    );
  }, [key]);
  if (!topics || topics.length === 0) return null;
  return (
    <section class="topics" aria-labelledby="topics-title">
      <h2 id="topics-title" class="section-title">
        Topics
        <span class="muted"> · the videos grouped by what they say</span>
      </h2>
      <ul class="topic-grid">
        {topics.map((topic) => (
          <li class="topic" key={topic.label}>
            <h3 class="topic-label">{capitalized(topic.label)}</h3>
            <ul class="topic-videos" aria-label={`Videos about ${topic.label}`}>
              {topic.videos.map((video) => (
                <li key={video.videoId}>
                  <a href={href.video(video.videoId)}>{video.title}</a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function AddVideos({ onUpload, onPath }: { onUpload: (files: File[], incremental: boolean) => void; onPath: (path: string, incremental: boolean) => void }) {
  const [dragging, setDragging] = useState(false);
  const [incremental, setIncremental] = useState(false);
  const [path, setPath] = useState("");

  // Files dropped beside the zone would make the browser leave the page to show them.
  useEffect(() => {
    const keep = (event: DragEvent) => {
      if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
    };
    addEventListener("dragover", keep);
    addEventListener("drop", keep);
    return () => {
      removeEventListener("dragover", keep);
      removeEventListener("drop", keep);
    };
  }, []);

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    onUpload([...(event.dataTransfer?.files ?? [])], incremental);
  };
  const submitPath = (event: Event) => {
    event.preventDefault();
    if (!path.trim()) return;
    onPath(path.trim(), incremental);
    setPath("");
  };

  return (
    <section class="add panel" aria-labelledby="add-title">
      <h2 id="add-title">Add videos</h2>
      <div
        class={`drop-zone ${dragging ? "dragging" : ""}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <label for="upload">Upload videos (with their .srt or .vtt subtitles, if any), or drop them here</label>
        <input
          id="upload"
          type="file"
          multiple
          accept="video/*,audio/*,.mkv,.avi,.srt,.vtt,.txt"
          onChange={(event) => {
            const input = event.currentTarget;
            onUpload([...(input.files ?? [])], incremental);
            input.value = "";
          }}
        />
      </div>
      <form class="path-form" onSubmit={submitPath}>
        <label for="path">Or a file or folder on the server</label>
        <div class="query-row">
          <input id="path" type="text" placeholder="/srv/videos/lectures" value={path} onInput={(event) => setPath(event.currentTarget.value)} autoComplete="off" spellcheck={false} />
          <button type="submit" disabled={path.trim() === ""}>
            Add
          </button>
        </div>
      </form>
      <label class="checkbox">
        <input type="checkbox" checked={incremental} onChange={(event) => setIncremental(event.currentTarget.checked)} /> Incremental: index
        fast now, run speech and screen text on the clips that questions need
      </label>
    </section>
  );
}

function VideoCard({ video, onRemove }: { video: Video; onRemove: () => void }) {
  const [detail, setDetail] = useState<VideoDetail>();
  useEffect(() => {
    api<VideoDetail>(`/api/videos/${encodeURIComponent(video.id)}`).then(setDetail, () => undefined);
  }, [video.id]);
  const sources = detail ? sourceCounts(detail) : [];
  const thumbnailSecond = Math.min(5, video.durationSeconds / 3);

  return (
    <li class="video-card" data-video-id={video.id}>
      <a class="video-thumbnail" href={href.video(video.id)} tabIndex={-1} aria-hidden="true">
        {video.hasVideo ? <Thumbnail videoId={video.id} second={thumbnailSecond} /> : <div class="thumbnail thumbnail-missing" />}
        <span class="duration">{formatDuration(video.durationSeconds)}</span>
      </a>
      <div class="video-card-body">
        <h3 class="video-title">
          <a href={href.video(video.id)}>{video.title}</a>
        </h3>
        <p class="video-meta">
          <span class="sr-only">Length </span>
          {formatDuration(video.durationSeconds)} · {plural(video.clipCount, "clip")} ·{" "}
          {video.language && <span title="Language">{languageName(video.language)} · </span>}
          <span class={video.pendingClips > 0 || video.failedClips > 0 ? "status-pending" : "status-ready"}>{statusText(video)}</span>
        </p>
        <div class="badges" aria-label="Sources">
          {sources.map(([name, count]) => (
            <span class="badge" key={name} title={plural(count, "segment")}>
              {name}
            </span>
          ))}
          {detail && sources.length === 0 && <span class="muted">no text indexed</span>}
        </div>
        <button type="button" class="quiet danger remove" onClick={onRemove} aria-label={`Remove ${video.title}`}>
          Remove
        </button>
      </div>
    </li>
  );
}

/** Segments per source as people name them; visual words and captions count together. */
function sourceCounts(detail: VideoDetail): [string, number][] {
  const counts = new Map<string, number>();
  for (const [source, count] of Object.entries(detail.sources)) {
    if (!count) continue;
    const name = sourceName(source as keyof VideoDetail["sources"]);
    counts.set(name, (counts.get(name) ?? 0) + count);
  }
  return [...counts];
}

function statusText(video: Video): string {
  const parts = [];
  if (video.pendingClips > 0) parts.push(`${plural(video.pendingClips, "clip")} pending`);
  if (video.failedClips > 0) parts.push(`${video.failedClips} failed`);
  return parts.length > 0 ? parts.join(", ") : "ready";
}
