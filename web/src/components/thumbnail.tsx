// A video's picture at a second, from the server's frame route; a quiet placeholder where there is none.

import { useState } from "preact/hooks";
import { mediaUrls } from "../api";

export function Thumbnail({ videoId, second, label }: { videoId: string; second: number; label?: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return <div class="thumbnail thumbnail-missing" aria-hidden="true" />;
  return (
    <img
      class="thumbnail"
      src={mediaUrls.frame(videoId, second)}
      alt={label ?? ""}
      loading="lazy"
      decoding="async"
      width={320}
      height={180}
      onError={() => setFailed(true)}
    />
  );
}
