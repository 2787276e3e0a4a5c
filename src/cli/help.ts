// What `videorag --help` and `videorag <command> --help` print: every option is described once, and each command lists
// the options it reads, so a command's help shows its own options only.

const optionLines = {
  library: "--library <dir|url>   library folder, or postgres://user@host/db for a library shared by several machines\n                      (default $VIDEORAG_LIBRARY or ./.videorag)",
  config: "--config <file>       configuration file (default ./videorag.config.json, or $VIDEORAG_CONFIG)",
  "models-dir": "--models-dir <dir>    local models folder (default $VIDEORAG_MODELS_DIR or ~/.cache/videorag/models)",
  json: "--json                machine-readable output",
  limit: "--limit <n>           number of results",
  mode: "--mode <mode>         retrieval: naive | graph | visual | hybrid (default) | video",
  without: "--without <ch>        leave graph or visual out of hybrid, for ablations (repeatable)",
  questions: "--questions <file>    the questions file (see ../shared/datasets/howto-qa/dev-questions.json for the format)",
  explain: "--explain             show which retrievers found each moment (rank, score) and its evidence: the matching\n                      words, detections or entities",
  "no-extract": "--no-extract          answer from what is indexed now, run no deferred stage",
  "clip-seconds": "--clip-seconds <n>    clip length (default 30)",
  incremental: "--incremental         commit the light index and defer speech, screen text, dense visual words and captions",
  transcripts: "--transcripts <dir>   ingest <id>.txt|.srt|.vtt files as videos known by their transcript",
  channels: "--no-ocr, --no-speech, --no-visual   turn off screen text / speech recognition / detection and captions",
  all: "--all                 run every pending clip (the default)",
  budget: "--budget <n>          at most this many clips",
  video: "--video <id|title>    only this video (repeatable for ask and search)",
  length: "--length <l>          short, medium (default) or long",
  speaker: "--speaker <name>      only moments where this speaker (a name or a label) speaks",
  speakers: "--speakers <n>        how many people speak in these files, when you know (estimated otherwise)",
  language: "--language <code>     the language these files speak or show (de, fr, ja…), when their subtitles cannot tell it",
  rename: '--rename "<label>=<name>"   name a speaker (repeatable; an empty name clears it)',
  vtt: "--vtt                 WebVTT chapters, for any player",
  port: "--port <n>            port to listen on (default 7860; 0 picks a free one)",
  host: "--host <address>      address to bind (default 127.0.0.1); any other needs --token or $VIDEORAG_TOKEN",
  token: "--token <t>           the token clients must send (default $VIDEORAG_TOKEN)",
  "media-root": "--media-root <dir>    a folder whose files the server may ingest by path (repeatable)",
  cors: "--cors <origin>       an origin allowed to call the API from a browser (repeatable)",
  "allowed-host": "--allowed-host <name> a host name clients reach the server by, beside loopback and --host (repeatable)",
  "upload-limit": "--upload-limit <MiB>  largest upload, all its files together (default 4096)",
  queue: "--queue <url>         redis://[user:password@]host:port of the job queue (default $VIDEORAG_QUEUE)",
  wait: "--wait                after enqueuing, show progress until every job is done",
  concurrency: "--concurrency <n>     jobs this worker runs at once (default 1)",
  help: "-h, --help            this help",
} as const;

type OptionName = keyof typeof optionLines;

const libraryOptions: OptionName[] = ["library", "config", "models-dir"];

/** Each command's usage lines and the options it reads. */
const commands: Record<string, { usage: string[]; options: OptionName[] }> = {
  ingest: {
    usage: [
      "videorag ingest <files|folders|globs...>    ingest videos (resumable; re-ingesting is a no-op)",
      "videorag ingest --incremental <inputs...>   light index only: askable in seconds; heavy stages run where questions need them",
      "videorag ingest --transcripts <dir>         ingest <id>.txt|.srt|.vtt files as videos known by their transcript",
      "videorag ingest --queue <redis-url> [--wait] <inputs...>   enqueue one job per file for workers",
    ],
    options: [...libraryOptions, "incremental", "transcripts", "clip-seconds", "speakers", "language", "channels", "queue", "wait", "json"],
  },
  ask: {
    usage: [
      'videorag ask "<question>"                   answer with citations (facts, overviews, how-to steps, every moment)',
      'videorag ask --video <id|title> "<question>"   about one video (repeatable)',
    ],
    options: [...libraryOptions, "mode", "limit", "video", "explain", "no-extract", "json"],
  },
  search: { usage: ['videorag search "<query>"                   ranked moments with times, scores and matching text'], options: [...libraryOptions, "mode", "limit", "video", "speaker", "explain", "json"] },
  speakers: { usage: ['videorag speakers <video> [--rename "Speaker 2=Dana"]   who speaks: talk time and first words per speaker; name them'], options: [...libraryOptions, "rename", "json"] },
  chapters: { usage: ["videorag chapters <video> [--json | --vtt]  start, end, title and one-line summary per chapter"], options: [...libraryOptions, "json", "vtt"] },
  summarize: { usage: ["videorag summarize <video> [--length short|medium|long]   a summary whose every sentence cites its moment"], options: [...libraryOptions, "length", "json"] },
  list: { usage: ["videorag list                               videos in the library"], options: ["library", "config", "json"] },
  status: { usage: ["videorag status                             deferred work per stage and video: clips extracted, pending, failed"], options: ["library", "config", "json"] },
  extract: {
    usage: ["videorag extract [--all | --budget <clips>] [--video <id>]   run pending deferred work now (resumable, Ctrl-C safe)"],
    options: [...libraryOptions, "all", "budget", "video", "channels", "json"],
  },
  remove: { usage: ["videorag remove <id>                        remove a video and everything it contributed"], options: ["library", "config", "json"] },
  entity: { usage: ['videorag entity "<name>"                    a knowledge-graph entity: its description, sources and relations'], options: ["library", "config", "json"] },
  mcp: { usage: ["videorag mcp                                Model Context Protocol over stdio, for AI assistants"], options: libraryOptions },
  eval: {
    usage: [
      "videorag eval retrieval --questions <file>  recall@1/5/10 and search latency",
      "videorag eval answers --questions <file>    ROUGE-L of the answers",
    ],
    options: [...libraryOptions, "questions", "mode", "without", "limit", "json"],
  },
  serve: {
    usage: ["videorag serve [--port 7860] [--host 127.0.0.1] [--token <t>] [--media-root <dir>...]   HTTP API and web UI"],
    options: [...libraryOptions, "port", "host", "token", "media-root", "cors", "allowed-host", "upload-limit"],
  },
  worker: { usage: ["videorag worker --queue <redis-url> [--concurrency 1]      run ingest jobs into --library until Ctrl-C"], options: [...libraryOptions, "queue", "concurrency", "channels"] },
  queue: { usage: ["videorag queue status --queue <redis-url> [--json]          waiting, active, failed (with error codes) and done jobs"], options: ["queue", "json"] },
  doctor: {
    usage: ["videorag doctor                             which provider runs each stage, whether it is reachable, what falls back"],
    options: ["config", "models-dir", "json"],
  },
  models: {
    usage: [
      "videorag models list | verify [names...]    known models, whether they are in the models folder, sha256 checks",
      "videorag models pull <names...>             download models into the models folder",
    ],
    options: ["models-dir", "config", "json"],
  },
};

/** The commands `--help` knows. */
export const commandNames = Object.keys(commands);

/** One command's usage and its options; undefined for an unknown command. */
export function commandHelp(command: string): string | undefined {
  const entry = commands[command];
  if (!entry) return undefined;
  return [
    "Usage:",
    ...entry.usage.map((line) => `  ${line}`),
    "",
    "Options:",
    ...[...entry.options, "help" as const].map((name) => `  ${optionLines[name].replaceAll("\n", "\n  ")}`),
  ].join("\n");
}

/** Every command, grouped, and the options all commands share. */
export function overviewHelp(): string {
  const group = (names: string[]): string[] => names.flatMap((name) => (commands[name]?.usage ?? []).map((line) => `  ${line}`));
  return [
    "videorag — ask questions of a library of videos; answers cite the video and the second.",
    "",
    "Usage:",
    ...group(["ingest", "ask", "search", "chapters", "summarize", "speakers", "list", "status", "extract", "remove", "entity", "mcp", "eval"]),
    "",
    "Server:",
    ...group(["serve"]),
    "",
    "Many machines (jobs on a Redis queue; workers see the files at the same paths; --library postgres://… shares the library):",
    ...group(["worker", "queue"]),
    "",
    "Models:",
    ...group(["doctor", "models"]),
    "",
    "Options every library command takes:",
    ...(["library", "config", "models-dir", "json"] as const).map((name) => `  ${optionLines[name].replaceAll("\n", "\n  ")}`),
    "  --version             the version",
    "",
    "`videorag <command> --help` lists a command's own options.",
  ].join("\n");
}
