// Builds the browser UI (web/) into dist/web, the folder `videorag serve` hands out at `/`.
// `npx vite --config web/vite.config.ts` serves it for development, sending /api to a running server
// ($VIDEORAG_URL, default http://127.0.0.1:7860).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "../dist/web", emptyOutDir: true },
  server: { proxy: { "/api": process.env.VIDEORAG_URL ?? "http://127.0.0.1:7860" } },
});
