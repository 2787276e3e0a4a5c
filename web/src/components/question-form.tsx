// The question box of the Ask page and of a video's page: a labelled search field and its button, which says when the
// question is being answered; what else a page asks for (a retrieval mode) comes as children.

import type { ComponentChildren } from "preact";

export function QuestionForm(props: {
  id: string;
  label: string;
  placeholder: string;
  question: string;
  running: boolean;
  onQuestion: (question: string) => void;
  onAsk: (question: string) => void;
  children?: ComponentChildren;
}) {
  const submit = (event: Event) => {
    event.preventDefault();
    const asked = props.question.trim();
    if (asked) props.onAsk(asked);
  };
  return (
    <form class="query-form" onSubmit={submit}>
      <label for={props.id}>{props.label}</label>
      <div class="query-row">
        <input
          id={props.id}
          type="search"
          enterKeyHint="send"
          placeholder={props.placeholder}
          value={props.question}
          onInput={(event) => props.onQuestion(event.currentTarget.value)}
          autoComplete="off"
        />
        <button class="primary" type="submit" disabled={props.question.trim() === ""}>
          {props.running ? "Asking…" : "Ask"}
        </button>
      </div>
      {props.children}
    </form>
  );
}
