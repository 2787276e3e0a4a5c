// Plays one moment of a video in the page: seeks to its start, plays, and pauses at its end.

import { useEffect, useRef, useState } from "preact/hooks";
import { mediaUrls } from "../api";
import { formatRange } from "../format";
import { href } from "../route";

/** A moment to play; a new `request` number replays even the same moment. */
export interface PlayRequest {
  videoId: string;
  title: string;
  startSecond: number;
  endSecond: number;
  quote?: string;
  /** Who says the quote, when known. */
  speaker?: string;
  request: number;
}

type PlayerState = "loading" | "playing" | "ended" | "paused" | "blocked" | "error";

const stateText: Record<PlayerState, string> = {
  loading: "Loading the video…",
  playing: "Playing the moment",
  ended: "End of the moment",
  paused: "Paused",
  blocked: "Press play to start",
  error: "This video could not be played here.",
};

export function MomentPlayer({ moment }: { moment: PlayRequest }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<PlayerState>("loading");

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let watching = true;
    let frame = 0;
    setState("loading");
    // A frame-accurate stop: timeupdate alone comes only every quarter second.
    const watch = () => {
      if (!watching) return;
      if (video.currentTime >= moment.endSecond) {
        watching = false;
        video.pause();
        setState("ended");
        return;
      }
      frame = requestAnimationFrame(watch);
    };
    const start = () => {
      video.currentTime = moment.startSecond;
      video.play().then(
        () => {
          setState("playing");
          watch();
        },
        () => setState("blocked"),
      );
    };
    const onPause = () => {
      if (!watching) return;
      watching = false;
      cancelAnimationFrame(frame);
      setState("paused");
    };
    const onEnded = () => {
      watching = false;
      setState("ended");
    };
    const onError = () => {
      watching = false;
      setState("error");
    };
    video.addEventListener("pause", onPause);
    video.addEventListener("ended", onEnded);
    video.addEventListener("error", onError);
    if (video.readyState >= HTMLMediaElement.HAVE_METADATA) start();
    else video.addEventListener("loadedmetadata", start, { once: true });
    return () => {
      watching = false;
      cancelAnimationFrame(frame);
      video.removeEventListener("loadedmetadata", start);
      video.removeEventListener("pause", onPause);
      video.removeEventListener("ended", onEnded);
      video.removeEventListener("error", onError);
    };
  }, [moment]);

  return (
    <figure class="moment-player" data-state={state} aria-label={`${moment.title} ${formatRange(moment.startSecond, moment.endSecond)}`}>
      <video key={moment.videoId} ref={videoRef} src={mediaUrls.media(moment.videoId)} controls playsInline preload="auto">
        <track kind="subtitles" src={mediaUrls.subtitles(moment.videoId)} srclang="en" label="Indexed text" default />
      </video>
      <figcaption>
        <div class="moment-player-title">
          <strong>{moment.title}</strong> <span class="time">{formatRange(moment.startSecond, moment.endSecond)}</span>
          <a class="quiet-link" href={href.video(moment.videoId, moment.startSecond)}>
            Open video
          </a>
        </div>
        {moment.quote && (
          <p class="moment-player-quote">
            {moment.speaker && <span class="moment-player-speaker">{moment.speaker}: </span>}
            <q>{moment.quote}</q>
          </p>
        )}
        <p class={`player-state ${state === "error" ? "error-text" : ""}`} role="status">
          {stateText[state]}
        </p>
      </figcaption>
    </figure>
  );
}
