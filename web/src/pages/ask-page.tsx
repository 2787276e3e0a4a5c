// Ask: the question goes to POST /api/ask as an event stream; the moments found, the extraction's progress and the
// answer's text arrive as they happen. Citation chips play the cited moment in the page; the evidence below says
// which retrievers found each moment.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, streamEvents } from "../api";
import type { Answer, Citation, ExtractionEvent, Hit, RetrievalMode } from "../api-types";
import { AnswerText } from "../components/answer-text";
import { ErrorNotice } from "../components/error-notice";
import { MomentCard } from "../components/moment-card";
import { PlayerAside } from "../components/player-aside";
import { ModeSelect } from "../components/mode-select";
import { basename, plural } from "../format";
import { usePlayer } from "../use-player";

interface AskState {
  question: string;
  running: boolean;
  moments: Hit[];
  text: string;
  citations: Citation[];
  progress: string[];
  answer?: Answer;
  error?: unknown;
}

const idle: AskState = { question: "", running: false, moments: [], text: "", citations: [], progress: [] };

export function AskPage() {
  const [question, setQuestion] = useState("");
  const [mode, setMode] = useState<RetrievalMode | "">("");
  const [state, setState] = useState<AskState>(idle);
  const { playing, play } = usePlayer();
  const abort = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => abort.current?.abort(), []);

  const ask = async (event: Event) => {
    event.preventDefault();
    const asked = question.trim();
    if (!asked) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    let current: AskState = { ...idle, question: asked, running: true };
    const update = (change: Partial<AskState>) => {
      current = { ...current, ...change };
      if (!controller.signal.aborted) setState(current);
    };
    update({});
    try {
      const body = { question: asked, ...(mode ? { mode } : {}) };
      for await (const message of streamEvents("/api/ask", { body, signal: controller.signal })) {
        const data: unknown = message.data ? JSON.parse(message.data) : undefined;
        switch (message.event) {
          case "moments":
            update({ moments: (data as { moments: Hit[] }).moments });
            break;
          case "extraction":
            update({ progress: progressLines(current.progress, data as ExtractionEvent) });
            break;
          case "text":
            update({ text: current.text + (data as { delta: string }).delta });
            break;
          case "citation":
            update({ citations: [...current.citations, data as Citation] });
            break;
          case "done": {
            const answer = data as Answer;
            update({ answer, text: answer.text, citations: answer.citations, moments: answer.moments });
            break;
          }
          case "error": {
            const { error } = data as { error: { code: string; message: string } };
            update({ error: new ApiError(0, error.code, error.message) });
            break;
          }
        }
      }
    } catch (failure) {
      if (!controller.signal.aborted) update({ error: failure });
    } finally {
      update({ running: false });
    }
  };

  const playCitation = (moment: Citation | Hit) =>
    play({ videoId: moment.videoId, title: moment.title, startSecond: moment.startSecond, endSecond: moment.endSecond, quote: "quote" in moment ? moment.quote : moment.text });

  const { answer } = state;
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Ask
      </h1>
      <form class="query-form" onSubmit={ask}>
        <label for="question">Question</label>
        <div class="query-row">
          <input
            id="question"
            type="search"
            enterKeyHint="send"
            placeholder="What was said, written or shown?"
            value={question}
            onInput={(event) => setQuestion(event.currentTarget.value)}
            autoComplete="off"
          />
          <button class="primary" type="submit" disabled={question.trim() === ""}>
            {state.running ? "Asking…" : "Ask"}
          </button>
        </div>
        <ModeSelect mode={mode} onChange={setMode} />
      </form>

      {state.question && (
        <div class={`results ${playing ? "has-player" : ""}`}>
          <div class="results-main">
            <section class="answer panel" aria-labelledby="answer-title" aria-busy={state.running}>
              <h2 id="answer-title">Answer</h2>
              {state.progress.length > 0 && (
                <ul class="extraction" aria-label="Extraction">
                  {state.progress.map((line, index) => (
                    <li key={index}>{line}</li>
                  ))}
                </ul>
              )}
              {state.text ? (
                <AnswerText text={state.text} citations={state.citations} onPlay={playCitation} />
              ) : (
                state.running && <p class="muted">Looking through the library…</p>
              )}
              {state.error !== undefined && <ErrorNotice error={state.error} />}
              {answer && (
                <footer class="answer-footer">
                  <p class="muted">
                    {answer.profile.summary}
                    {answer.timings.totalMs !== undefined && ` · ${Math.round(answer.timings.totalMs)} ms`}
                  </p>
                  {answer.warnings.length > 0 && (
                    <ul class="warnings" aria-label="Warnings">
                      {answer.warnings.map((warning, index) => (
                        <li key={index}>
                          <strong>{warning.feature}</strong>: {warning.detail}
                        </li>
                      ))}
                    </ul>
                  )}
                </footer>
              )}
            </section>

            {state.moments.length > 0 && (
              <section class="evidence" aria-labelledby="evidence-title">
                <h2 id="evidence-title">Evidence</h2>
                <ol class="moments">
                  {state.moments.map((hit, index) => (
                    <MomentCard key={`${hit.videoId}-${hit.startSecond}-${index}`} hit={hit} onPlay={playCitation} explain />
                  ))}
                </ol>
              </section>
            )}
          </div>
          <PlayerAside playing={playing} hint="Choose a cited moment to play it here." />
        </div>
      )}
    </section>
  );
}

/** The extraction's progress as lines: one per round's plan and per start and end, one live line per clip. */
function progressLines(lines: string[], event: ExtractionEvent): string[] {
  const live = (line: string) => (lines.at(-1)?.startsWith("…") ? [...lines.slice(0, -1), line] : [...lines, line]);
  switch (event.type) {
    case "plan":
      return [...lines, `Round ${event.round}: extracting ${event.stages.join(", ")} on ${plural(event.clips.length, "clip")}…`];
    case "extract-start":
      return [...lines, `Extracting ${plural(event.clips, "clip")}…`];
    case "extract-clip":
      return live(`… ${event.stage} on ${basename(event.path)}, clip ${event.clipIndex + 1} (${event.done}/${event.total})`);
    case "extract-batch":
      return live(`… ${basename(event.path)}: ${plural(event.clipIndexes.length, "clip")} in ${event.seconds.toFixed(1)} s`);
    case "extract-done":
      return [...lines.filter((line) => !line.startsWith("…")), `Extracted ${plural(event.clips, "clip")} in ${event.seconds.toFixed(1)} s`];
    default:
      return lines;
  }
}
