// A question about one video: asked with videoIds [this video], answered as the Ask page answers, and its citations
// seek this page's player (a citation of another video, which a scoped answer should not have, opens that video).

import { useState } from "preact/hooks";
import type { Citation } from "../api-types";
import { href } from "../route";
import { useAsk } from "../use-ask";
import { AnswerPanel } from "./answer-panel";
import { QuestionForm } from "./question-form";

export function VideoQuestion({ videoId, onSeek }: { videoId: string; onSeek: (second: number) => void }) {
  const [question, setQuestion] = useState("");
  const { state, ask } = useAsk();

  const play = (citation: Citation) => {
    if (citation.videoId === videoId) onSeek(citation.startSecond);
    else location.hash = href.video(citation.videoId, citation.startSecond);
  };

  return (
    <section class="video-question">
      <QuestionForm
        id="video-question"
        label="Ask about this video"
        placeholder="What happens? Who says what?"
        question={question}
        running={state.running}
        onQuestion={setQuestion}
        onAsk={(asked) => void ask(asked, { videoIds: [videoId] })}
      />
      {state.question && <AnswerPanel state={state} onPlay={play} waiting="Looking through this video…" titleId="video-answer-title" />}
    </section>
  );
}
