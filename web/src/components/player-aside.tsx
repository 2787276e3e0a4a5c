// The player beside a list of moments: sticky at the side on a wide screen, above the list on a phone.

import { MomentPlayer, type PlayRequest } from "./moment-player";

export function PlayerAside({ playing, hint }: { playing?: PlayRequest; hint: string }) {
  return (
    <aside class="results-player" aria-label="Player">
      {playing ? <MomentPlayer moment={playing} /> : <p class="player-hint muted">{hint}</p>}
    </aside>
  );
}
