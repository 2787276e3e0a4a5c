// The videorag command line: argument parsing over the library API. Sets process.exitCode, never calls process.exit.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { formatCitation, formatTimestamp, stripCitations } from "../answer/index.js";
import { evalRetrieval, loadQuestions, rougeL } from "../eval/index.js";
import { openLibrary, type Library } from "../library.js";
import { VideoRagError } from "../spec/index.js";
import { reportError } from "./exit-codes.js";
import { createCountPrinter, createProgressPrinter, formatSummary } from "./progress.js";

const usage = `videorag — ask questions of a library of videos; answers cite the video and the second.

Usage:
  videorag ingest <files|folders|globs...>    ingest videos (resumable; re-ingesting is a no-op)
  videorag ingest --transcripts <dir>         ingest <id>.txt|.srt|.vtt files as videos known by their transcript
  videorag ask "<question>"                   answer with citations
  videorag search "<query>"                   ranked moments with times, scores and matching text
  videorag list                               videos in the library
  videorag remove <id>                        remove a video and everything it contributed
  videorag eval retrieval --questions <file>  recall@1/5/10 and search latency
  videorag eval answers --questions <file>    ROUGE-L of the answers

Options:
  --library <dir>   library folder (default $VIDEORAG_LIBRARY or ./.videorag)
  --json            machine-readable output (read commands and eval)
  --limit <n>       number of results (search, ask)
  --clip-seconds <n>  clip length for ingest (default 30)
  --no-ocr, --no-speech  turn off screen text / speech recognition during ingest
  -h, --help`;

const options = {
  library: { type: "string" },
  json: { type: "boolean" },
  limit: { type: "string" },
  transcripts: { type: "string" },
  questions: { type: "string" },
  "clip-seconds": { type: "string" },
  "no-ocr": { type: "boolean" },
  "no-speech": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} satisfies ParseArgsConfig["options"];

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new VideoRagError("ARGUMENT_INVALID", `--${name} must be a positive number, got "${value}"`);
  return parsed;
}

function print(json: boolean | undefined, data: unknown, text: () => string): void {
  console.log(json ? JSON.stringify(data, null, 2) : text());
}

async function withLibrary<T>(values: Values, work: (library: Library) => Promise<T>): Promise<T> {
  const library = await openLibrary({
    path: values.library,
    clipSeconds: positiveInteger(values["clip-seconds"], "clip-seconds", 30),
    ocr: !values["no-ocr"],
    speech: !values["no-speech"],
  });
  try {
    return await work(library);
  } finally {
    library.close();
  }
}

async function ingestCommand(values: Values, inputs: string[]): Promise<void> {
  if (inputs.length === 0 && !values.transcripts) throw new VideoRagError("ARGUMENT_INVALID", "ingest needs files, folders or --transcripts <dir>");
  const controller = new AbortController();
  const interrupt = (): void => controller.abort(new VideoRagError("INTERRUPTED", "interrupted; run the same ingest again to resume"));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    await withLibrary(values, async (library) => {
      const reports = [];
      if (values.transcripts) reports.push(await library.ingestTranscripts(values.transcripts, { onProgress: createCountPrinter(), signal: controller.signal }));
      if (inputs.length > 0) reports.push(await library.ingest(inputs, { onProgress: createProgressPrinter(), signal: controller.signal }));
      const providers = inputs.length > 0 ? await library.providers() : [];
      for (const report of reports) {
        if (values.json) console.log(JSON.stringify(report, null, 2));
        else console.log(formatSummary(report, providers));
        if (report.failed > 0) process.exitCode = 3;
      }
    });
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

async function askCommand(values: Values, words: string[]): Promise<void> {
  const question = words.join(" ").trim();
  if (!question) throw new VideoRagError("ARGUMENT_INVALID", 'ask needs a question, e.g. videorag ask "who is in a bad humor?"');
  await withLibrary(values, async (library) => {
    const answer = await library.ask(question, { limit: values.limit ? positiveInteger(values.limit, "limit", 8) : undefined });
    print(values.json, answer, () => {
      const lines = [answer.text];
      if (answer.citations.length > 0) {
        lines.push("", "Sources:");
        answer.citations.forEach((citation, index) => lines.push(`  ${index + 1}. ${formatCitation(citation, citation.timesEstimated)} ${citation.path}`));
      }
      for (const warning of answer.warnings) lines.push(`warning: ${warning.detail}`);
      lines.push("", `(${answer.profile}; ${answer.timings.totalMs} ms)`);
      return lines.join("\n");
    });
  });
}

async function searchCommand(values: Values, words: string[]): Promise<void> {
  const query = words.join(" ").trim();
  if (!query) throw new VideoRagError("ARGUMENT_INVALID", "search needs a query");
  await withLibrary(values, async (library) => {
    const hits = library.search(query, { limit: positiveInteger(values.limit, "limit", 10) });
    print(
      values.json,
      { hits: hits.map(({ videoId, path, startSecond, endSecond, score, text, source }) => ({ videoId, path, startSecond, endSecond, score, text, source })) },
      () =>
        hits.length === 0
          ? "No matching moments."
          : hits
              .map((hit, index) => `${index + 1}. ${formatCitation(hit)} score ${hit.score.toFixed(2)} (${hit.source.join(", ")})\n   ${hit.text.replace(/\s+/g, " ").slice(0, 200)}`)
              .join("\n"),
    );
  });
}

async function listCommand(values: Values): Promise<void> {
  await withLibrary(values, async (library) => {
    const videos = library.list();
    print(values.json, { videos }, () =>
      videos.length === 0
        ? `The library at ${library.path} is empty. Add videos with: videorag ingest <files>`
        : videos.map((video) => `${video.id}  ${formatTimestamp(video.durationSeconds).padStart(8)}  ${String(video.clipCount).padStart(4)} clips  ${video.title}  ${video.path}`).join("\n"),
    );
  });
}

async function removeCommand(values: Values, references: string[]): Promise<void> {
  if (references.length === 0) throw new VideoRagError("ARGUMENT_INVALID", "remove needs a video id (see videorag list)");
  await withLibrary(values, async (library) => {
    const removed = references.map((reference) => library.remove(reference));
    print(values.json, { removed: removed.map((video) => ({ id: video.id, path: video.path })) }, () =>
      removed.map((video) => `removed ${video.id} ${video.title}`).join("\n"),
    );
  });
}

async function evalCommand(values: Values, args: string[]): Promise<void> {
  const [kind] = args;
  if (kind !== "retrieval" && kind !== "answers") throw new VideoRagError("ARGUMENT_INVALID", "eval needs 'retrieval' or 'answers'");
  if (!values.questions) throw new VideoRagError("ARGUMENT_INVALID", "eval needs --questions <file>");
  const questions = loadQuestions(values.questions);
  await withLibrary(values, async (library) => {
    if (kind === "retrieval") {
      const report = evalRetrieval(questions, { rank: (question) => library.searchVideos(question, { limit: 10 }) });
      print(values.json, report, () =>
        [
          `questions: ${report.questions}`,
          `recall@1 ${report.recallAt1.toFixed(3)}  recall@5 ${report.recallAt5.toFixed(3)}  recall@10 ${report.recallAt10.toFixed(3)}`,
          `search latency p50 ${report.latencyMs.p50.toFixed(1)} ms, p95 ${report.latencyMs.p95.toFixed(1)} ms`,
        ].join("\n"),
      );
      return;
    }
    const withAnswers = questions.filter((question) => question.answer);
    if (withAnswers.length === 0) throw new VideoRagError("QUESTIONS_INVALID", "no question in the file has an `answer` to compare with");
    let total = 0;
    const perQuestion = [];
    for (const question of withAnswers) {
      const answer = await library.ask(question.question);
      const score = rougeL(stripCitations(answer.text), question.answer ?? "");
      total += score;
      perQuestion.push({ id: question.id, rougeL: Number(score.toFixed(2)), citations: answer.citations.length });
    }
    const report = { questions: withAnswers.length, rougeL: Number((total / withAnswers.length).toFixed(2)), profile: "lite (extractive)", perQuestion };
    print(values.json, report, () => `questions: ${report.questions}\nROUGE-L ${report.rougeL.toFixed(2)} (${report.profile})`);
  });
}

export async function main(argv: string[]): Promise<void> {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    } catch (error) {
      throw new VideoRagError("ARGUMENT_INVALID", error instanceof Error ? error.message : String(error));
    }
    const { values, positionals } = parsed;
    const [command, ...rest] = positionals;
    if (values.help || !command) {
      console.log(usage);
      if (!command && !values.help) process.exitCode = 2;
      return;
    }
    switch (command) {
      case "ingest":
        return await ingestCommand(values, rest);
      case "ask":
        return await askCommand(values, rest);
      case "search":
        return await searchCommand(values, rest);
      case "list":
        return await listCommand(values);
      case "remove":
        return await removeCommand(values, rest);
      case "eval":
        return await evalCommand(values, rest);
      default:
        throw new VideoRagError("ARGUMENT_INVALID", `unknown command "${command}" (see videorag --help)`);
    }
  } catch (error) {
    reportError(error);
  }
}
