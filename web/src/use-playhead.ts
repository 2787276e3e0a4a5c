// Where a media element is playing and how long its media lasts, in seconds, as state: updated as it plays, seeks
// and learns its duration (NaN until it does).

import { useEffect, useState } from "preact/hooks";

const events = ["timeupdate", "seeked", "seeking", "loadedmetadata", "durationchange"];

export function usePlayhead(player: HTMLMediaElement | null): { second: number; durationSeconds: number } {
  const [playhead, setPlayhead] = useState({ second: 0, durationSeconds: Number.NaN });
  useEffect(() => {
    if (!player) return;
    const update = () =>
      setPlayhead((last) =>
        last.second === player.currentTime && Object.is(last.durationSeconds, player.duration) ? last : { second: player.currentTime, durationSeconds: player.duration },
      );
    update();
    for (const event of events) player.addEventListener(event, update);
    return () => {
      for (const event of events) player.removeEventListener(event, update);
    };
  }, [player]);
  return playhead;
}
