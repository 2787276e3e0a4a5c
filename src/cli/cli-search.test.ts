// `videorag search` on real media as a user runs it: a hit comes only with evidence for the query in it, and
// `--explain` (and `--json`) show that evidence, per retriever.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { HitProvenance } from "../spec/index.js";
import { runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const scratch = mkdtempSync(join(tmpdir(), "videorag-cli-search-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const cli = (args: string[]) => runCli(scratch, args);

test("search car over the five surveillance videos returns only moments with a car in them, and --explain shows it", { skip: needsShared }, () => {
  const library = ["--library", join(scratch, "surveillance"), "--models-dir", sharedPath("models")];
  const ingest = cli(["ingest", ...library, "--no-ocr", "--no-speech", sharedPath("media/surveillance")]);
  assert.equal(ingest.status, 0, ingest.stderr);

  const search = cli(["search", "car", "--json", ...library]);
  assert.equal(search.status, 0, search.stderr);
  const { hits } = JSON.parse(search.stdout) as { hits: { title: string; provenance?: HitProvenance[] }[] };
  const titles = hits.map((hit) => hit.title);
  assert.ok(titles.includes("vtest.avi") && titles.includes("person-bicycle-car-detection.mp4"), titles.join(", "));
  // People entering a room one at a time: the graph's "people" entity, described as seen with cars elsewhere, once
  // brought this video in as a whole-video moment holding no car.
  assert.ok(!titles.includes("one-by-one-person-detection.mp4"), titles.join(", "));
  for (const hit of hits) {
    const evidence = (hit.provenance ?? []).map((found) => found.detail ?? "");
    assert.ok(evidence.some((detail) => /\bcars?\b/.test(detail)), `${hit.title}: ${JSON.stringify(hit.provenance)}`);
  }

  const explained = cli(["search", "car", "--explain", ...library]);
  assert.equal(explained.status, 0, explained.stderr);
  const blocks = explained.stdout.split(/\n(?=\d+\. \[)/);
  assert.equal(blocks.length, hits.length, explained.stdout);
  for (const block of blocks) assert.match(block, /\n {3}found by .*\bwords: [^)]*\bcars?\b/, block);
  assert.match(explained.stdout, /bm25 \(rank \d+, score [\d.]+, words: car/);
  assert.match(explained.stdout, /visual \(rank \d+, score [\d.]+, frame at \d+:\d\d, detections and tags: car/);
  assert.match(explained.stdout, /graph \(rank \d+, score [\d.]+, entities: [^)]*\bcar\b[^)]*, words: car/);
  assert.match(cli(["search", "--help"]).stdout, /--explain/);
});
