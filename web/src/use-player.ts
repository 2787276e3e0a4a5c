// The moment a page is playing; choosing one (even the same again) restarts it and brings the player into view.

import { useCallback, useEffect, useState } from "preact/hooks";
import type { PlayRequest } from "./components/moment-player";

export function usePlayer(): { playing?: PlayRequest; play: (moment: Omit<PlayRequest, "request">) => void } {
  const [playing, setPlaying] = useState<PlayRequest>();
  const play = useCallback((moment: Omit<PlayRequest, "request">) => setPlaying((last) => ({ ...moment, request: (last?.request ?? 0) + 1 })), []);
  useEffect(() => {
    if (!playing) return;
    const player = document.querySelector(".moment-player");
    if (player && player.getBoundingClientRect().top < 0) player.scrollIntoView({ block: "start", behavior: "smooth" });
    else if (player && player.getBoundingClientRect().bottom > innerHeight) player.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [playing?.request]);
  return playing ? { playing, play } : { play };
}
