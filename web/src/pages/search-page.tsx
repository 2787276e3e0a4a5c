// Search: ranked moments for a query, its words marked in each moment's text; choosing one plays it in the page.
// The query lives in the address (#/search?q=…), so a search can be linked and reloaded.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { Hit, RetrievalMode } from "../api-types";
import { ErrorNotice } from "../components/error-notice";
import { ModeSelect } from "../components/mode-select";
import { MomentCard } from "../components/moment-card";
import { PlayerAside } from "../components/player-aside";
import { plural } from "../format";
import { href } from "../route";
import { usePlayer } from "../use-player";

type Results = { query: string; hits: Hit[] } | { query: string; error: unknown } | { query: string; loading: true };

export function SearchPage({ query }: { query: string }) {
  const [draft, setDraft] = useState(query);
  const [mode, setMode] = useState<RetrievalMode | "">("");
  const [results, setResults] = useState<Results>();
  const [explain, setExplain] = useState(false);
  const { playing, play } = usePlayer();

  // The box follows the address when it changes (back, a link), not on mounting: what was typed by then stays.
  const shownQuery = useRef(query);
  useEffect(() => {
    if (shownQuery.current === query) return;
    shownQuery.current = query;
    setDraft(query);
  }, [query]);
  useEffect(() => {
    if (!query.trim()) return;
    const controller = new AbortController();
    setResults({ query, loading: true });
    const body = { query, limit: 20, ...(mode ? { mode } : {}) };
    api<{ hits: Hit[] }>("/api/search", { method: "POST", body, signal: controller.signal }).then(
      ({ hits }) => setResults({ query, hits }),
      (error: unknown) => controller.signal.aborted || setResults({ query, error }),
    );
    return () => controller.abort();
  }, [query, mode]);

  const submit = (event: Event) => {
    event.preventDefault();
    const next = draft.trim();
    if (next) location.hash = href.search(next);
  };
  const playHit = (hit: Hit) => play({ videoId: hit.videoId, title: hit.title, startSecond: hit.startSecond, endSecond: hit.endSecond, quote: hit.text });

  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Search
      </h1>
      <form class="query-form" role="search" onSubmit={submit}>
        <label for="query">Words, names or a description</label>
        <div class="query-row">
          <input id="query" type="search" value={draft} onInput={(event) => setDraft(event.currentTarget.value)} autoComplete="off" />
          <button class="primary" type="submit" disabled={draft.trim() === ""}>
            Search
          </button>
        </div>
        <div class="form-options">
          <ModeSelect mode={mode} onChange={setMode} />
          <label class="checkbox">
            <input type="checkbox" checked={explain} onChange={(event) => setExplain(event.currentTarget.checked)} /> Show how each moment was found
          </label>
        </div>
      </form>

      {results && (
        <div class={`results ${playing ? "has-player" : ""}`}>
          <div class="results-main">
            {"loading" in results && <p class="muted">Searching…</p>}
            {"error" in results && <ErrorNotice error={results.error} />}
            {"hits" in results && (
              <>
                <p class="muted" role="status">
                  {results.hits.length === 0 ? `Nothing found for “${results.query}”.` : `${plural(results.hits.length, "moment")} for “${results.query}”`}
                </p>
                <ol class="moments">
                  {results.hits.map((hit, index) => (
                    <MomentCard key={`${hit.videoId}-${hit.startSecond}-${index}`} hit={hit} query={results.query} onPlay={playHit} explain={explain} />
                  ))}
                </ol>
              </>
            )}
          </div>
          <PlayerAside playing={playing} hint="Choose a moment to play it here." />
        </div>
      )}
    </section>
  );
}
