// Who speaks in a video (GET /api/videos/:id/speakers): a colour per speaker, the same in the panel and the transcript;
// each speaker's talk time and first words; and renaming in place: a click on a name opens an input, Enter saves it
// (PUT /api/videos/:id/speakers/:label, by the label the segments carry), Escape or leaving the input cancels.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { Speaker, Speakers } from "../api-types";
import { formatDuration, formatTimestamp, plural } from "../format";
import { href } from "../route";
import { ErrorNotice } from "./error-notice";

/** How many colours speakers take before they repeat (styles.css defines `--speaker-0` … `--speaker-7`). */
const colours = 8;

/** The colour of the speaker at `index` in order of first appearance, as a CSS value. */
export function speakerColour(index: number): string {
  return `var(--speaker-${((index % colours) + colours) % colours})`;
}

/** The speaker at each label: its place in order of first appearance (its colour) and the name it has now. */
export function speakerTable(speakers: readonly Speaker[]): Map<string, { index: number; name?: string }> {
  return new Map(speakers.map((speaker, index) => [speaker.label, { index, ...(speaker.name ? { name: speaker.name } : {}) }]));
}

/**
 * A speaker's name (its label while it has none) as a button that turns into an input: Enter saves the name (an empty one
 * clears it), Escape or leaving the input cancels. `onRenamed` receives the video's speakers as the server has them now.
 */
export function SpeakerName({
  videoId,
  label,
  name,
  colour,
  onRenamed,
}: {
  videoId: string;
  label: string;
  name?: string;
  colour: string;
  onRenamed: (speakers: Speaker[]) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const input = useRef<HTMLInputElement>(null);
  // Read by the input's blur, which may come before the render that follows a save's start.
  const savingNow = useRef(false);
  const shown = name ?? label;

  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  const save = async () => {
    const value = input.current?.value.trim() ?? "";
    if (value === (name ?? "")) {
      setEditing(false);
      return;
    }
    savingNow.current = true;
    setSaving(true);
    setError(undefined);
    try {
      const reply = await api<Speakers>(`/api/videos/${encodeURIComponent(videoId)}/speakers/${encodeURIComponent(label)}`, {
        method: "PUT",
        body: { name: value === "" ? null : value },
      });
      setEditing(false);
      onRenamed(reply.speakers);
    } catch (failure) {
      setError(failure);
      input.current?.focus();
    } finally {
      savingNow.current = false;
      setSaving(false);
    }
  };

  if (!editing) {
    return (
      <button
        type="button"
        class="speaker-name"
        style={{ "--speaker-colour": colour }}
        data-label={label}
        title={name ? `${name} (${label}): click to rename` : `${label}: click to name`}
        aria-label={`${shown}: rename`}
        onClick={() => {
          setError(undefined);
          setEditing(true);
        }}
      >
        {shown}
      </button>
    );
  }
  return (
    <span class="speaker-rename" style={{ "--speaker-colour": colour }}>
      <input
        ref={input}
        type="text"
        class="speaker-input"
        defaultValue={name ?? ""}
        placeholder={label}
        maxLength={100}
        readOnly={saving}
        aria-busy={saving}
        aria-label={`Name for ${label}`}
        aria-describedby={error !== undefined ? `rename-error-${label}` : undefined}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            if (!savingNow.current) void save();
          } else if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            setEditing(false);
            setError(undefined);
          }
        }}
        onBlur={() => {
          // A failed save keeps the input open with its message; otherwise leaving it cancels.
          if (!savingNow.current && error === undefined) setEditing(false);
        }}
      />
      {error !== undefined && (
        <span id={`rename-error-${label}`} class="speaker-rename-error">
          <ErrorNotice error={error} />
        </span>
      )}
    </span>
  );
}

/** The panel: each speaker with its colour, its name (renamed in place), its share of the talk and its first words. */
export function SpeakersPanel({
  videoId,
  speakers,
  onRenamed,
  onSeek,
}: {
  videoId: string;
  speakers: readonly Speaker[];
  onRenamed: (speakers: Speaker[]) => void;
  onSeek: (second: number) => void;
}) {
  const totalSeconds = speakers.reduce((sum, speaker) => sum + speaker.talkSeconds, 0);
  return (
    <section class="video-section speakers" aria-labelledby="speakers-title">
      <div class="section-head">
        <h2 id="speakers-title">Speakers</h2>
        <span class="muted">{plural(speakers.length, "speaker")} · click a name to rename</span>
      </div>
      <ol class="speaker-list">
        {speakers.map((speaker, index) => {
          const share = totalSeconds > 0 ? speaker.talkSeconds / totalSeconds : 0;
          return (
            <li key={speaker.label} class="speaker-row" data-label={speaker.label} style={{ "--speaker-colour": speakerColour(index) }}>
              <span class="speaker-swatch" aria-hidden="true" />
              <span class="speaker-who">
                <SpeakerName videoId={videoId} label={speaker.label} name={speaker.name} colour={speakerColour(index)} onRenamed={onRenamed} />
                {speaker.name && <span class="speaker-label muted">{speaker.label}</span>}
              </span>
              <span class="speaker-talk" title={`${Math.round(share * 100)}% of the talk`}>
                <span class="time">{formatDuration(speaker.talkSeconds)}</span>
                <span class="speaker-share" aria-hidden="true">
                  <span style={{ width: `${Math.max(2, share * 100)}%` }} />
                </span>
              </span>
              <button
                type="button"
                class="speaker-first"
                aria-label={`Play from ${formatTimestamp(speaker.firstSecond)}: ${speaker.firstWords}`}
                onClick={() => onSeek(speaker.firstSecond)}
              >
                <span class="time">{formatTimestamp(speaker.firstSecond)}</span> <q>{speaker.firstWords}</q>
              </button>
              {speaker.sameVoice && speaker.sameVoice.length > 0 && (
                <p class="speaker-alike muted">
                  Same voice as{" "}
                  {speaker.sameVoice.map((match, position) => (
                    <span key={`${match.videoId}/${match.label}`}>
                      {position > 0 && ", "}
                      <a href={href.video(match.videoId)} title={`voice similarity ${match.similarity.toFixed(2)}`}>
                        {match.name ?? match.label} in {match.title}
                      </a>
                    </span>
                  ))}
                  ?
                </p>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
