// The page frame: header with navigation and the server's version and profile, the routed page, and the token form
// when the server asks for one.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, onLoginNeeded } from "./api";
import type { Health } from "./api-types";
import { LoginForm } from "./components/login-form";
import { AskPage } from "./pages/ask-page";
import { LibraryPage } from "./pages/library-page";
import { SearchPage } from "./pages/search-page";
import { VideoPage } from "./pages/video-page";
import { href, useRoute, type Route } from "./route";

export function App() {
  const route = useRoute();
  const [health, setHealth] = useState<Health | "unreachable">();
  const [loginNeeded, setLoginNeeded] = useState(false);

  useEffect(() => {
    onLoginNeeded(setLoginNeeded);
    api<Health>("/api/health").then(setHealth, () => setHealth("unreachable"));
  }, []);

  // A new page: its title in the tab, and (after the first) focus on its heading for keyboard and screen-reader users.
  const firstPage = useRef(true);
  useEffect(() => {
    document.title = `${pageName(route)} · videorag`;
    const typing = document.activeElement?.matches("input, textarea, select");
    if (!firstPage.current && !typing) document.getElementById("page-title")?.focus({ preventScroll: true });
    firstPage.current = false;
  }, [route.page, route.page === "video" ? route.videoId : ""]);

  return (
    <>
      <a class="skip-link" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById("page-title")?.focus(); }}>
        Skip to content
      </a>
      <header class="site-header">
        <div class="site-header-inner">
          <a class="brand" href={href.library()}>
            videorag
          </a>
          <nav aria-label="Main">
            <NavLink to={href.library()} current={route.page === "library"}>Library</NavLink>
            <NavLink to={href.ask()} current={route.page === "ask"}>Ask</NavLink>
            <NavLink to={href.search()} current={route.page === "search"}>Search</NavLink>
          </nav>
          <p class="health" aria-label="Server">
            {health === "unreachable" ? (
              <span class="error-text">server unreachable</span>
            ) : (
              health && `v${health.version} · ${health.profile === "lite" ? "lite profile" : "language model"}`
            )}
          </p>
        </div>
      </header>
      <main id="main">
        <Page route={route} />
      </main>
      {loginNeeded && <LoginForm />}
    </>
  );
}

function NavLink({ to, current, children }: { to: string; current: boolean; children: string }) {
  return (
    <a href={to} aria-current={current ? "page" : undefined}>
      {children}
    </a>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "library":
      return <LibraryPage />;
    case "ask":
      return <AskPage />;
    case "search":
      return <SearchPage query={route.query} />;
    case "video":
      return <VideoPage key={route.videoId} videoId={route.videoId} second={route.second} />;
    case "not-found":
      return (
        <section class="page">
          <h1 id="page-title" tabIndex={-1}>
            Not found
          </h1>
          <p>
            There is no page at <code>{route.path}</code>. <a href={href.library()}>Back to the library</a>.
          </p>
        </section>
      );
  }
}

function pageName(route: Route): string {
  return { library: "Library", ask: "Ask", search: "Search", video: "Video", "not-found": "Not found" }[route.page];
}
