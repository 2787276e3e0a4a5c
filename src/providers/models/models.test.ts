// The models folder: listing and verifying the real files in ../shared/models, downloading from a local HTTP server
// (never the internet), and the messages a user sees when a model is missing or cannot be fetched.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { VideoRagError } from "../../spec/errors.js";
import { needsShared, sharedPath } from "../../test-support/shared.js";
import {
  findManifestModel,
  listModels,
  modelManifest,
  modelsDir,
  pullModels,
  requireModel,
  verifyModels,
  type ModelEntry,
} from "./index.js";
import { imagenetClassesToLines } from "./pull-models.js";
import { rejectsWith } from "../../test-support/assertions.js";

const onnxModels = ["yolox-nano", "mobilenetv2", "silero-vad"];
const huggingFaceModels = ["Xenova/clip-vit-base-patch32", "Xenova/all-MiniLM-L6-v2", "Xenova/whisper-base.en"];

async function temporaryDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "videorag-models-"));
}

function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}


function throwsWith(run: () => unknown, code: string): VideoRagError {
  try {
    run();
  } catch (error) {
    assert.ok(VideoRagError.isInstance(error), `expected a VideoRagError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but it returned`);
}

describe("modelsDir", () => {
  test("an explicit folder beats VIDEORAG_MODELS_DIR, which beats XDG_CACHE_HOME and ~/.cache", () => {
    const env = { VIDEORAG_MODELS_DIR: "/srv/models", XDG_CACHE_HOME: "/var/cache/me" };
    assert.equal(modelsDir({ modelsDir: "/opt/models", env }), "/opt/models");
    assert.equal(modelsDir({ modelsDir: "relative/models", env }), resolve("relative/models"));
    assert.equal(modelsDir({ env }), "/srv/models");
    assert.equal(modelsDir({ env: { XDG_CACHE_HOME: "/var/cache/me" } }), "/var/cache/me/videorag/models");
    assert.equal(modelsDir({ env: { XDG_CACHE_HOME: "not/absolute" } }), join(homedir(), ".cache", "videorag", "models"));
    assert.equal(modelsDir({ env: {} }), join(homedir(), ".cache", "videorag", "models"));
  });
});

describe("manifest", () => {
  test("names are unique, URLs are HTTPS, pinned hashes are sha256 hex, and every model says what replaces it", () => {
    const names = modelManifest.map((model) => model.name);
    assert.equal(new Set(names).size, names.length);
    for (const model of modelManifest) {
      assert.ok(model.fallback.length > 10, `${model.name} has no fallback`);
      for (const file of model.files) {
        assert.match(file.url, /^https:\/\//, file.url);
        if (file.sha256 !== null) assert.match(file.sha256, /^[0-9a-f]{64}$/, file.path);
      }
    }
    for (const name of [...onnxModels, ...huggingFaceModels]) assert.ok(findManifestModel(name), name);
    assert.equal(findManifestModel("no-such-model"), undefined);
  });

  test("the neural diarizer's default models: one of each kind, single ONNX files from Hugging Face, hashes not invented", () => {
    const segmentation = findManifestModel("pyannote-segmentation-3.0");
    const embedding = findManifestModel("3dspeaker-campplus-en-voxceleb");
    assert.equal(segmentation?.kind, "speaker-segmentation");
    assert.equal(embedding?.kind, "speaker-embedding");
    assert.equal(segmentation.license, "MIT");
    assert.equal(embedding.license, "Apache-2.0");
    for (const model of [segmentation, embedding]) {
      assert.equal(model.files.length, 1);
      const [file] = model.files;
      assert.ok(file);
      assert.ok(file.path.endsWith(".onnx"), file.path);
      assert.match(file.url, /^https:\/\/huggingface\.co\/csukuangfj\/[^/]+\/resolve\/main\/[^/]+\.onnx$/);
      assert.equal(file.sha256, null, "not pinned until computed from a real copy");
      assert.match(model.fallback, /lite diarizer/);
    }
  });

  test("Hugging Face files sit under <org>/<name>/ as transformers.js's localModelPath expects", () => {
    for (const name of huggingFaceModels) {
      const model = findManifestModel(name);
      assert.ok(model);
      for (const file of model.files) {
        assert.ok(file.path.startsWith(`${name}/`), file.path);
        assert.equal(file.url, `https://huggingface.co/${name}/resolve/main/${file.path.slice(name.length + 1)}`);
      }
      assert.ok(model.files.some((file) => file.path === `${name}/config.json`));
      assert.ok(model.files.some((file) => file.path.endsWith("_quantized.onnx")));
    }
  });
});

describe("the real models in ../shared/models", { skip: needsShared }, () => {
  test("list shows the ONNX models present with their sizes and the Hugging Face models missing", async () => {
    const listing = await listModels(sharedPath("models"));
    const byName = new Map(listing.map((model) => [model.name, model]));
    for (const name of onnxModels) {
      const model = byName.get(name);
      assert.equal(model?.status, "present", name);
      assert.equal(model?.sizeBytes, model?.expectedSizeBytes, name);
      assert.deepEqual(model?.missingFiles, []);
    }
    assert.equal(byName.get("yolox-nano")?.sizeBytes, 3_713_911 + 606);
    for (const name of huggingFaceModels) {
      const model = byName.get(name);
      assert.equal(model?.status, "missing", name);
      assert.equal(model?.sizeBytes, 0);
      assert.equal(model?.expectedSizeBytes, null, "Hugging Face sizes are not pinned");
    }
  });

  test("verify hashes every ONNX and label file and finds each matching its pinned sha256", async () => {
    const results = await verifyModels(sharedPath("models"), onnxModels);
    assert.deepEqual(results.map((result) => result.name), onnxModels);
    for (const result of results) {
      assert.equal(result.ok, true, result.name);
      for (const file of result.files) {
        assert.equal(file.status, "ok", `${file.path}: ${file.detail}`);
        assert.equal(file.sha256, file.expectedSha256);
      }
    }
  });

  test("verify reports the Hugging Face models' files as missing, not as ok", async () => {
    const [clip] = await verifyModels(sharedPath("models"), ["Xenova/clip-vit-base-patch32"]);
    assert.equal(clip?.ok, false);
    assert.ok(clip?.files.every((file) => file.status === "missing"));
  });

  test("verify finds a copy with one changed byte (sha256-mismatch) and a truncated one (size-mismatch)", async () => {
    const dir = await temporaryDir();
    try {
      const labels = await readFile(sharedPath("models", "coco_labels.txt"));
      const changed = Buffer.from(labels);
      changed[0] = changed[0] === 0x41 ? 0x42 : 0x41;
      await writeFile(join(dir, "coco_labels.txt"), changed);
      await writeFile(join(dir, "imagenet_labels.txt"), (await readFile(sharedPath("models", "imagenet_labels.txt"))).subarray(0, 100));
      await copyFile(sharedPath("models", "mobilenetv2-12-int8.onnx"), join(dir, "mobilenetv2-12-int8.onnx"));

      const [yolox, mobilenet] = await verifyModels(dir, ["yolox-nano", "mobilenetv2"]);
      assert.equal(yolox?.ok, false);
      assert.deepEqual(
        yolox?.files.map((file) => [file.path, file.status]),
        [["yolox_nano.onnx", "missing"], ["coco_labels.txt", "sha256-mismatch"]],
      );
      assert.equal(yolox?.files[1]?.sha256, sha256(changed));
      assert.equal(mobilenet?.ok, false);
      assert.deepEqual(
        mobilenet?.files.map((file) => [file.path, file.status]),
        [["mobilenetv2-12-int8.onnx", "ok"], ["imagenet_labels.txt", "size-mismatch"]],
      );

      // The cheap checks agree: the truncated labels make the tagger partial, and requireModel refuses it.
      const listing = await listModels(dir);
      assert.equal(listing.find((model) => model.name === "mobilenetv2")?.status, "partial");
      throwsWith(() => requireModel(dir, "mobilenetv2"), "MODEL_NOT_FOUND");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("requireModel returns the absolute paths of a present model, weights first", () => {
    const [weights, labels] = requireModel(sharedPath("models"), "yolox-nano");
    assert.equal(weights, sharedPath("models", "yolox_nano.onnx"));
    assert.equal(labels, sharedPath("models", "coco_labels.txt"));
  });

  test("requireModel for a missing Hugging Face model names the folder, the pull command and the fallback", () => {
    const error = throwsWith(() => requireModel(sharedPath("models"), "Xenova/clip-vit-base-patch32"), "MODEL_NOT_FOUND");
    assert.ok(error.message.includes(sharedPath("models")), error.message);
    assert.ok(error.message.includes("videorag models pull Xenova/clip-vit-base-patch32"), error.message);
    assert.ok(error.message.includes("no image-text vectors; visual search uses detector and tagger words"), error.message);
    assert.ok(error.message.includes("by hand"), error.message);
  });
});

test("an unknown model name is an ARGUMENT_INVALID listing the known ones", async () => {
  const error = throwsWith(() => requireModel(tmpdir(), "clip-large"), "ARGUMENT_INVALID");
  assert.ok(error.message.includes("yolox-nano"), error.message);
  await rejectsWith(verifyModels(tmpdir(), ["clip-large"]), "ARGUMENT_INVALID");
});

test("a present file without a pinned hash verifies as 'present, not pinned'", async () => {
  const dir = await temporaryDir();
  try {
    const manifest: ModelEntry[] = [
      {
        name: "org/tiny",
        kind: "text-embedding",
        files: [{ path: "org/tiny/config.json", url: "https://example.invalid/config.json", sizeBytes: null, sha256: null }],
        license: "MIT",
        source: "a test",
        notes: "",
        fallback: "nothing",
      },
    ];
    await rejectsWith(pullModels(dir, ["org/tiny"], { manifest, fetch: () => Promise.reject(new TypeError("fetch failed")) }), "MODEL_UNAVAILABLE");
    const [missing] = await verifyModels(dir, undefined, { manifest });
    assert.equal(missing?.files[0]?.status, "missing");

    await mkdir(join(dir, "org", "tiny"), { recursive: true });
    await writeFile(join(dir, "org", "tiny", "config.json"), "{}");
    const [present] = await verifyModels(dir, undefined, { manifest });
    assert.equal(present?.ok, true);
    assert.equal(present?.files[0]?.status, "unpinned");
    assert.equal(present?.files[0]?.detail, "present, not pinned");
    assert.equal(present?.files[0]?.sha256, sha256("{}"));
    assert.deepEqual(requireModel(dir, "org/tiny", { manifest }), [join(dir, "org", "tiny", "config.json")]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

describe("pullModels against a local HTTP server", () => {
  const good = Buffer.from("person\nbicycle\ncar\n".repeat(400));
  const corrupt = Buffer.from(good);
  corrupt[5] = 0x58;
  let server: Server;
  let baseUrl = "";
  const requests: string[] = [];

  before(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? "");
      if (request.url === "/good.txt" || request.url === "/corrupt.txt") {
        const body = request.url === "/good.txt" ? good : corrupt;
        response.writeHead(200, { "content-type": "text/plain", "content-length": body.length });
        // Two writes with a pause, so that progress usually arrives in steps.
        response.write(body.subarray(0, 1000));
        setTimeout(() => response.end(body.subarray(1000)), 10);
      } else if (request.url === "/stall.txt") {
        response.writeHead(200, { "content-length": good.length });
        response.write(good.subarray(0, 100));
        // Never ends: the test aborts it.
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  function entry(name: string, file: string, pinned = true): ModelEntry {
    return {
      name,
      kind: "detector",
      files: [
        {
          path: `labels/${name}.txt`,
          url: `${baseUrl}/${file}`,
          sizeBytes: pinned ? good.length : null,
          sha256: pinned ? sha256(good) : null,
        },
      ],
      license: "MIT",
      source: "a local test server",
      notes: "",
      fallback: "no test labels",
    };
  }

  test("downloads, checks the hash, reports progress and renames into place; a second pull fetches nothing", async () => {
    const dir = await temporaryDir();
    try {
      const manifest = [entry("good", "good.txt")];
      const progress: [string, number, number | undefined][] = [];
      const [result] = await pullModels(dir, ["good"], {
        manifest,
        onProgress: (file, doneBytes, totalBytes) => progress.push([file, doneBytes, totalBytes]),
      });
      const target = join(dir, "labels", "good.txt");
      assert.deepEqual(result, { name: "good", files: [{ path: "labels/good.txt", absolutePath: target, status: "downloaded" }] });
      assert.deepEqual(await readFile(target), good);
      assert.deepEqual(progress[0], ["labels/good.txt", 0, good.length]);
      for (let index = 1; index < progress.length; index += 1) {
        assert.ok((progress[index]?.[1] ?? 0) >= (progress[index - 1]?.[1] ?? 0), "progress never goes back");
      }
      assert.deepEqual(progress.at(-1), ["labels/good.txt", good.length, good.length]);
      assert.deepEqual(await readdir(join(dir, "labels")), ["good.txt"], "no temporary file is left behind");
      const [verified] = await verifyModels(dir, ["good"], { manifest });
      assert.equal(verified?.files[0]?.status, "ok");

      const before = requests.length;
      const [again] = await pullModels(dir, ["good"], { manifest });
      assert.equal(again?.files[0]?.status, "present");
      assert.equal(requests.length, before, "an intact file is not downloaded again");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a download whose sha256 differs fails with MODEL_UNAVAILABLE and leaves no file under the final name", async () => {
    const dir = await temporaryDir();
    try {
      const manifest = [entry("corrupt", "corrupt.txt")];
      const error = await rejectsWith(pullModels(dir, ["corrupt"], { manifest }), "MODEL_UNAVAILABLE");
      assert.match(error.message, /sha256/);
      assert.ok(error.message.includes(dir), error.message);
      assert.deepEqual(await readdir(join(dir, "labels")), [], "neither the final file nor a temporary one is left");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a damaged file already in place is replaced by a good download", async () => {
    const dir = await temporaryDir();
    try {
      const manifest = [entry("good", "good.txt")];
      await mkdir(join(dir, "labels"));
      await writeFile(join(dir, "labels", "good.txt"), corrupt);
      const [result] = await pullModels(dir, ["good"], { manifest });
      assert.equal(result?.files[0]?.status, "downloaded");
      assert.deepEqual(await readFile(join(dir, "labels", "good.txt")), good);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("an HTTP 404 is MODEL_UNAVAILABLE naming the address", async () => {
    const dir = await temporaryDir();
    try {
      const error = await rejectsWith(pullModels(dir, ["gone"], { manifest: [entry("gone", "gone.txt")] }), "MODEL_UNAVAILABLE");
      assert.match(error.message, /HTTP 404/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("aborting mid-download is INTERRUPTED and leaves no file", async () => {
    const dir = await temporaryDir();
    try {
      const controller = new AbortController();
      const pulling = pullModels(dir, ["stall"], {
        manifest: [entry("stall", "stall.txt")],
        signal: controller.signal,
        onProgress: (_file, doneBytes) => {
          if (doneBytes > 0) controller.abort();
        },
      });
      await rejectsWith(pulling, "INTERRUPTED");
      assert.deepEqual(await readdir(join(dir, "labels")), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  test("a server that goes quiet mid-download is MODEL_UNAVAILABLE after the stall timeout, not a hang", async () => {
    const dir = await temporaryDir();
    try {
      const started = performance.now();
      const error = await rejectsWith(pullModels(dir, ["stall"], { manifest: [entry("stall", "stall.txt")], stallTimeoutMs: 300 }), "MODEL_UNAVAILABLE");
      assert.match(error.message, /no data for 0\.3 s/);
      assert.ok(performance.now() - started < 5000);
      assert.deepEqual(await readdir(join(dir, "labels")), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test("with no reachable server, pull is MODEL_UNAVAILABLE naming the folder to fill by hand and the fallback", async () => {
  const dir = await temporaryDir();
  try {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((done) => probe.close(done));
    const manifest: ModelEntry[] = [
      {
        name: "offline",
        kind: "vad",
        files: [{ path: "offline.onnx", url: `http://127.0.0.1:${port}/offline.onnx`, sizeBytes: 10, sha256: null }],
        license: "MIT",
        source: "nowhere",
        notes: "",
        fallback: "speech regions are found by loudness alone",
      },
    ];
    const error = await rejectsWith(pullModels(dir, ["offline"], { manifest }), "MODEL_UNAVAILABLE");
    assert.ok(error.message.includes(dir), error.message);
    assert.ok(error.message.includes("by hand"), error.message);
    assert.ok(error.message.includes("speech regions are found by loudness alone"), error.message);
    assert.deepEqual(await readdir(dir), []);

    // The real manifest without network (a fetch that fails as undici does offline).
    const offlineFetch = () => Promise.reject(new TypeError("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND huggingface.co") }));
    const hf = await rejectsWith(pullModels(dir, ["Xenova/all-MiniLM-L6-v2"], { fetch: offlineFetch }), "MODEL_UNAVAILABLE");
    assert.ok(hf.message.includes(dir), hf.message);
    assert.ok(hf.message.includes("ENOTFOUND"), hf.message);
    assert.ok(hf.message.includes("Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx"), hf.message);
    assert.ok(hf.message.includes("BM25"), hf.message);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("plain HTTP to another host is refused: model files are fetched over HTTPS", async () => {
  const dir = await temporaryDir();
  try {
    const manifest: ModelEntry[] = [
      {
        name: "insecure",
        kind: "vad",
        files: [{ path: "insecure.onnx", url: "http://example.com/insecure.onnx", sizeBytes: null, sha256: null }],
        license: "MIT",
        source: "nowhere",
        notes: "",
        fallback: "none",
      },
    ];
    let fetched = false;
    const fetchSpy = () => {
      fetched = true;
      return Promise.reject(new Error("should not be called"));
    };
    const error = await rejectsWith(pullModels(dir, ["insecure"], { manifest, fetch: fetchSpy }), "MODEL_UNAVAILABLE");
    assert.match(error.message, /not an HTTPS address/);
    assert.equal(fetched, false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the ImageNet class module of @tensorflow-models/mobilenet becomes one label a line", () => {
  const source = [
    "exports.IMAGENET_CLASSES = {",
    "    0: 'tench, Tinca tinca',",
    "    1: 'great white shark, white shark, ' +",
    "        'Carcharodon carcharias',",
    "    2: 'carpenter\\'s kit, tool kit'",
    "};",
  ].join("\n");
  assert.equal(
    imagenetClassesToLines(source),
    "tench, Tinca tinca\ngreat white shark, white shark, Carcharodon carcharias\ncarpenter's kit, tool kit\n",
  );
  assert.throws(() => imagenetClassesToLines("exports.IMAGENET_CLASSES = { 0: 'a', 2: 'c' };"), /class 1 is missing/);
});
