// An answer as it streams in: the extraction's progress, the preliminary answer while extraction runs, the text with its
// citation chips, a failure, and once done how it was made and its warnings. The Ask page and a video page's question
// box both show answers this way.

import type { Citation } from "../api-types";
import type { AskState } from "../use-ask";
import { AnswerText } from "./answer-text";
import { ErrorNotice } from "./error-notice";

export function AnswerPanel({ state, onPlay, waiting, titleId }: { state: AskState; onPlay: (citation: Citation) => void; waiting: string; titleId: string }) {
  const { answer } = state;
  return (
    <section class="answer panel" aria-labelledby={titleId} aria-busy={state.running}>
      <h2 id={titleId}>Answer</h2>
      {state.progress.length > 0 && (
        <ul class="extraction" aria-label="Extraction">
          {state.progress.map((line, index) => (
            <li key={index}>{line}</li>
          ))}
        </ul>
      )}
      {state.text ? (
        <AnswerText text={state.text} citations={state.citations} onPlay={onPlay} />
      ) : state.preliminary ? (
        <div class="preliminary" aria-label="Preliminary answer">
          <p class="preliminary-label">Preliminary: from what is indexed now, while the clips this question needs are extracted</p>
          <AnswerText text={state.preliminary.text} citations={state.preliminary.citations} onPlay={onPlay} />
        </div>
      ) : (
        state.running && <p class="muted">{waiting}</p>
      )}
      {state.error !== undefined && <ErrorNotice error={state.error} />}
      {answer && (
        <footer class="answer-footer">
          <p class="muted">
            {answer.profile.summary}
            {answer.timings.totalMs !== undefined &&
              ` · ${answer.preliminary ? `first answer ${Math.round(answer.preliminary.timings.totalMs ?? 0)} ms, final ` : ""}${Math.round(answer.timings.totalMs)} ms`}
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
  );
}
