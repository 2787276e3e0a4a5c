// A question about one video: asked with videoIds [this video], answered as the Ask page answers, and its citations
// seek this page's player (a citation of another video, which a scoped answer should not have, opens that video).

import { useState } from "preact/hooks";
import type { Citation } from "../api-types";
import { href } from "../route";
import { useAsk } from "../use-ask";
import { AnswerPanel } from "./answer-panel";

export function VideoQuestion({ videoId, onSeek }: { videoId: string; onSeek: (second: number) => void }) {
  const [question, setQuestion] = useState("");
  const { state, ask } = useAsk();

  const submit = (event: Event) => {
    event.preventDefault();
    const asked = question.trim();
    if (asked) void ask(asked, { videoIds: [videoId] });
  };
  const play = (citation: Citation) => {
    if (citation.videoId === videoId) onSeek(citation.startSecond);
    else location.hash = href.video(citation.videoId, citation.startSecond);
  };

  return (
    <section class="video-question">
      <form class="query-form" onSubmit={submit}>
        <label for="video-question">Ask about this video</label>
        <div class="query-row">
          <input
            id="video-question"
            type="search"
            enterKeyHint="send"
            placeholder="What happens? Who says what?"
            value={question}
            onInput={(event) => setQuestion(event.currentTarget.value)}
            autoComplete="off"
          />
          <button class="primary" type="submit" disabled={question.trim() === ""}>
            {state.running ? "Asking…" : "Ask"}
          </button>
        </div>
      </form>
      {state.question && <AnswerPanel state={state} onPlay={play} waiting="Looking through this video…" titleId="video-answer-title" />}
    </section>
  );
}
