// A question asked of the library as an event stream (POST /api/ask): the moments found, the answer from what is
// indexed when the question waits for extraction, the extraction's progress and the final answer's text as they arrive. Asking again, or leaving the page, drops the stream being read.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, streamEvents } from "./api";
import type { Answer, Citation, ExtractionEvent, Hit, PreliminaryAnswer, RetrievalMode } from "./api-types";
import { basename, plural } from "./format";

export interface AskState {
  question: string;
  running: boolean;
  moments: Hit[];
  text: string;
  citations: Citation[];
  progress: string[];
  /** Shown until the final answer's text arrives: what the index held before extraction. */
  preliminary?: PreliminaryAnswer;
  answer?: Answer;
  error?: unknown;
}

const idle: AskState = { question: "", running: false, moments: [], text: "", citations: [], progress: [] };

export function useAsk(): { state: AskState; ask: (question: string, options?: { mode?: RetrievalMode; videoIds?: string[] }) => Promise<void> } {
  const [state, setState] = useState<AskState>(idle);
  const abort = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => abort.current?.abort(), []);

  const ask = async (question: string, options: { mode?: RetrievalMode; videoIds?: string[] } = {}) => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    let current: AskState = { ...idle, question, running: true };
    const update = (change: Partial<AskState>) => {
      current = { ...current, ...change };
      if (!controller.signal.aborted) setState(current);
    };
    update({});
    try {
      const body = { question, ...(options.mode ? { mode: options.mode } : {}), ...(options.videoIds ? { videoIds: options.videoIds } : {}) };
      for await (const message of streamEvents("/api/ask", { body, signal: controller.signal })) {
        const data: unknown = message.data ? JSON.parse(message.data) : undefined;
        switch (message.event) {
          case "moments":
            update({ moments: (data as { moments: Hit[] }).moments });
            break;
          case "preliminary":
            update({ preliminary: data as PreliminaryAnswer });
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

  return { state, ask };
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
