// Hash routing, so the server hands out the same static files for every page: #/, #/ask, #/search, #/videos/<id>.

import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "library" }
  | { page: "ask" }
  | { page: "search"; query: string }
  | { page: "video"; videoId: string; second?: number }
  | { page: "not-found"; path: string };

export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(search);
  if (path === "" || path === "/") return { page: "library" };
  if (path === "/ask") return { page: "ask" };
  if (path === "/search") return { page: "search", query: params.get("q") ?? "" };
  const video = /^\/videos\/([^/]+)$/.exec(path);
  if (video?.[1]) {
    const second = Number(params.get("t"));
    return { page: "video", videoId: decodeURIComponent(video[1]), ...(params.has("t") && Number.isFinite(second) ? { second } : {}) };
  }
  return { page: "not-found", path };
}

/** The link to a page. */
export const href = {
  library: () => "#/",
  ask: () => "#/ask",
  search: (query?: string) => (query ? `#/search?q=${encodeURIComponent(query)}` : "#/search"),
  video: (videoId: string, second?: number) =>
    `#/videos/${encodeURIComponent(videoId)}${second !== undefined ? `?t=${Math.floor(second * 10) / 10}` : ""}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}
