// The knowledge graph across videos on real media, on the default SQLite library (see library-graph.case.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { graphLibraryCases } from "./library-graph.case.js";
import { openLibrary } from "./library.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-graph-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

graphLibraryCases("sqlite", (name, options) => openLibrary({ ...options, path: join(scratch, name) }));
