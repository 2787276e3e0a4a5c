// Ask: the question goes to POST /api/ask as an event stream; the moments found, the extraction's progress and the
// answer's text arrive as they happen. Citation chips play the cited moment in the page; the evidence below says
// which retrievers found each moment.

import { useState } from "preact/hooks";
import type { Citation, Hit, RetrievalMode } from "../api-types";
import { AnswerPanel } from "../components/answer-panel";
import { MomentCard } from "../components/moment-card";
import { PlayerAside } from "../components/player-aside";
import { QuestionForm } from "../components/question-form";
import { ModeSelect } from "../components/mode-select";
import { useAsk } from "../use-ask";
import { usePlayer } from "../use-player";

export function AskPage() {
  const [question, setQuestion] = useState("");
  const [mode, setMode] = useState<RetrievalMode | "">("");
  const { state, ask } = useAsk();
  const { playing, play } = usePlayer();

  const playCitation = (moment: Citation | Hit) =>
    play({
      videoId: moment.videoId,
      title: moment.title,
      startSecond: moment.startSecond,
      endSecond: moment.endSecond,
      quote: "quote" in moment ? moment.quote : moment.text,
      speaker: "speaker" in moment ? moment.speaker : undefined,
    });

  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Ask
      </h1>
      <QuestionForm
        id="question"
        label="Question"
        placeholder="What was said, written or shown?"
        question={question}
        running={state.running}
        onQuestion={setQuestion}
        onAsk={(asked) => void ask(asked, mode ? { mode } : {})}
      >
        <ModeSelect mode={mode} onChange={setMode} />
      </QuestionForm>

      {state.question && (
        <div class={`results ${playing ? "has-player" : ""}`}>
          <div class="results-main">
            <AnswerPanel state={state} onPlay={playCitation} waiting="Looking through the library…" titleId="answer-title" />

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
