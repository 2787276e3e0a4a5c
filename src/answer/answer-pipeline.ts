// The answer path as one pipeline: plan → extract → retrieve → answer. Question-time extraction (incremental libraries)
// plans clips from the light index, runs the deferred stages there and writes them back, and goes round again when the
// answer still finds nothing relevant; then the moments are retrieved and one strategy answers: extractive sentences, a
// language model over numbered evidence, with the moments' frames, or with the best moments re-described from frames.
// The library passes in what touches the platform (retrieval over its store, the frame source, the extractor).

import type { ExtractionEvent, ExtractionReport } from "../ingest/index.js";
import { analyzeText, asksAboutLibrary, isKindCue, searchChapters, speakerNameForms, speakerReference, judgeRelevance, namedVideos, questionIntent, questionKinds, questionLanguage, termKey, termKeyFor, type Retrieval } from "../retrieval/index.js";
import { liteSummary, type LibraryTopic, type SummaryLength, type VideoSummary } from "../summary/index.js";
import { VideoRagError, toVideoRagError } from "../spec/index.js";
import type {
  Answer,
  AnswerExtraction,
  AnswerProfile,
  ClipDocument,
  ClipStageState,
  Hit,
  ImageInput,
  PreliminaryAnswer,
  ImageTextEncoder,
  LanguageModel,
  QuestionIntent,
  RetrievalMode,
  Segment,
  Store,
  TextEmbedder,
  Video,
  Warning,
} from "../spec/index.js";
import { formatCitation } from "../text/citation-format.js";
import { buildEvidence } from "./build-evidence.js";
import { everyMoment } from "./every-moment.js";
import type { ExtractiveOptions } from "./extractive-input.js";
import { overviewText, summaryEvidence, topicsText } from "./overview-answer.js";
import { defaultStepSettings, stepAnswer, type StepInput } from "./step-answer.js";
import { streamLlmAnswer } from "./llm-answer.js";
import { clipId, extractionSteps, planExtraction, StepTimes, type ExtractionStep, type PlannedClip, type PlannedStage } from "./plan-extraction.js";
import { readSpeakerNaming } from "./speaker-naming.js";
import { redescribeClip } from "./redescribe-clip.js";

/** Progress of question-time extraction: each round's plan, then the extractor's own events. */
export type QuestionExtractionEvent = { type: "plan"; round: number; stages: PlannedStage[]; clips: PlannedClip[] } | ExtractionEvent;

/** Frames of a moment chosen for the question; none when the source cannot give them (the text still answers). */
export type FrameSource = (
  path: string,
  startSecond: number,
  endSecond: number,
  options: { count: number; question: string; imageText?: ImageTextEncoder; signal?: AbortSignal },
) => Promise<ImageInput[]>;

/** Question-time extraction as the library configures it. */
export interface QuestionExtraction {
  /** The stages this process can run (their models are here). */
  stages: PlannedStage[];
  maxClips: number;
  budgetSeconds: number;
  rounds: number;
  extract(
    clips: { videoId: string; clipIndex: number }[],
    stages: PlannedStage[],
    options: { budgetSeconds: number; onProgress?: (event: ExtractionEvent) => void; signal?: AbortSignal; speakersNow?: boolean },
  ): Promise<ExtractionReport>;
  /** The rest of a plan once the answer held (or the budget ran out): extracted in the background where the library can. */
  later?(clips: PlannedClip[], stages: PlannedStage[]): void;
  /** Runs a question's whole extraction, its plans and the looks between its steps included, ahead of background work. */
  hold?<T>(work: () => Promise<T>): Promise<T>;
  /** How long steps took on this library lately (a question's own when absent). */
  stepTimes?: StepTimes;
}

export interface AnswerContext {
  store: Store;
  llm?: LanguageModel;
  textEmbedder?: TextEmbedder;
  imageText?: ImageTextEncoder;
  /** `language`: the question's, identified once (ISO 639-1). */
  retrieve(question: string, options: { mode?: RetrievalMode; limit: number; signal?: AbortSignal; videoIds?: string[]; language?: string }): Promise<Retrieval>;
  /** The moments a retrieval ranks, merged and trimmed for display. */
  hits(question: string, retrieval: Retrieval, limit: number): Promise<Hit[]>;
  /** The lite answer: the moments' sentences that carry the question's rarest words, each cited. */
  extractive(question: string, moments: Hit[], options: ExtractiveOptions): Promise<Omit<Answer, "profile" | "timings">>;
  /** True when the video's times were estimated from a transcript without timestamps. */
  timesEstimated(videoId: string): Promise<boolean>;
  frames: FrameSource;
  /** Frames a vision-language model sees when it re-describes a moment. */
  redescribeFrames: number;
  /** Absent: the library answers from what is indexed. */
  extraction?: QuestionExtraction;
  /** The ready videos: scopes are resolved against them. */
  videos(): Promise<Video[]>;
  /** A video's summary from its chapters (the lite one: a language model writes overviews from the chapters itself). */
  summary(videoId: string, length: SummaryLength): Promise<VideoSummary>;
  /** The library's topics, for "what topics does this library cover?". */
  topics(): Promise<LibraryTopic[]>;
}

export interface AnswerOptions {
  limit?: number;
  maxSentences?: number;
  onText?: (delta: string) => void;
  onExtraction?: (event: QuestionExtractionEvent) => void;
  /** The moments the answer will be drawn from, as soon as retrieval has them. */
  onMoments?: (moments: Hit[]) => void;
  /** The lite answer from what is indexed, given before question-time extraction runs (only when it runs). */
  onPreliminary?: (answer: PreliminaryAnswer) => void;
  frames?: boolean;
  mode?: RetrievalMode;
  /** false: answer from what is indexed, extract nothing. Default true. */
  extract?: boolean;
  /** Files or folders an ingest is working through now: their pending clips are left to it, not extracted here. */
  busyPaths?: readonly string[];
  /** Answer about these videos only (ids); VIDEO_NOT_FOUND for an id not in the library. */
  videoIds?: readonly string[];
  /** The kind of answer to give; read from the question when absent. */
  intent?: QuestionIntent;
  signal?: AbortSignal;
}

/** The order retrievers are named in a profile. */
const retrieverOrder = ["video", "bm25", "dense", "graph", "visual"];
/** Frames given per moment when a vision-language model answers; the best moments first until the model's limit. */
const framesPerMoment = 4;
/** Moments a vision-language model re-describes for the question in hybrid mode. */
const redescribedMoments = 3;
/**
 * The share of the question's content words the best clip must hold for the light rule to call it answered. Measured
 * with `npm run bench incremental` (47 questions over 33 minutes of speech): at 0.5 over the top three clips, partial
 * matches in clips extracted for earlier questions stopped extraction too early (first-ask recall 0.67 of full).
 */
const answeredCoverage = 0.6;
/**
 * Clips extracted between two looks at whether the answer holds the question: one per core of this machine class, so
 * both are busy, and the best clip's speech is in after one step.
 */
const clipsPerStep = 2;

export async function answerQuestion(question: string, context: AnswerContext, options: AnswerOptions = {}): Promise<Answer> {
  const started = performance.now();
  if (!question.trim()) throw new VideoRagError("ARGUMENT_INVALID", "the question is empty");
  const limit = options.limit ?? 8;
  const warnings: Warning[] = [];
  // Identified once: every search, match and quote of this question reads its words in this language.
  const language = await questionLanguage(question);
  const intent = options.intent ?? questionIntent(question);
  const videos = await context.videos();
  const given = resolveScope(question, videos, options.videoIds);
  // "What did Dana say about …": only Dana's lines, in the videos where Dana speaks; "who said …" answers with the speaker.
  const reference = speakerReference(question);
  const scoped = (named: Map<string, Set<string>> | undefined): Video[] =>
    named ? (given.length > 0 ? given : videos).filter((video) => named.has(video.id)) : given;
  const idsOf = (named: Map<string, Set<string>> | undefined): string[] | undefined => {
    const inScope = scoped(named);
    return inScope.length > 0 || named ? inScope.map((video) => video.id) : undefined;
  };
  let speakers = reference?.name ? await speakersNamed(context.store, reference.name) : undefined;
  // Before the question waits for extraction, the answer the index can give now: the lite one, so no model is waited for.
  let preliminary: PreliminaryAnswer | undefined;
  const answerNow = async (): Promise<void> => {
    const now = await answerQuestion(
      question,
      { ...context, llm: undefined, extraction: undefined },
      { ...options, extract: false, frames: false, onText: undefined, onMoments: undefined, onExtraction: undefined, onPreliminary: undefined },
    );
    const { text, citations, profile, moments } = now;
    preliminary = { text, citations, profile, moments, warnings: [...warnings, ...now.warnings], timings: { ...now.timings, totalMs: Math.round(performance.now() - started) } };
    options.onPreliminary?.(preliminary);
  };
  const extraction =
    options.extract === false || !context.extraction
      ? undefined
      : await (context.extraction.hold ?? ((work) => work()))(() => extractForQuestion(question, language, context, { ...options, videoIds: idsOf(speakers) }, warnings, answerNow));
  // Speech recognised for this question may have brought the speaker's first lines ("Speaker 2" in a video diarized now).
  if (reference?.name && (extraction?.clips.length ?? 0) > 0) speakers = await speakersNamed(context.store, reference.name);
  const scope = scoped(speakers);
  const videoIds = idsOf(speakers);
  // What to look for besides the speaker: the question's other content words ("the budget"), framing ("say") aside.
  const restWords = reference?.rest ? analyzeText(reference.rest, language).filter((word) => !isKindCue(word)) : [];
  const asked = (speakers || reference?.asksWho) && restWords.length > 0 ? (reference?.rest as string) : question;
  const extracted = performance.now();

  const found = await context.retrieve(asked, { mode: options.mode, limit: limit * 2, signal: options.signal, videoIds, language });
  const moments = intent === "enumeration" ? [] : await context.hits(asked, found, limit);
  options.onMoments?.(moments);
  const retrieved = performance.now();
  const timings = (finished: number): Record<string, number> => ({
    ...(extraction ? { extractionMs: Math.round(extracted - started) } : {}),
    retrievalMs: Math.round(retrieved - extracted),
    answerMs: Math.round(finished - retrieved),
    totalMs: Math.round(finished - started),
  });
  const used = retrieverOrder.filter((retriever) => moments.some((moment) => moment.retriever.split("+").includes(retriever)));
  const base = {
    mode: found.mode,
    retrievers: used,
    models: {
      ...(used.includes("dense") && context.textEmbedder ? { dense: context.textEmbedder.id } : {}),
      ...(used.includes("visual") && context.imageText ? { visual: context.imageText.id } : {}),
    },
    extractedClips: extraction?.clips.length ?? 0,
  };
  const answered = {
    mode: found.mode,
    moments,
    intent,
    ...(scope.length > 0 ? { scope: scope.map((video) => ({ videoId: video.id, title: video.title })) } : {}),
    ...(extraction ? { extraction } : {}),
    ...(preliminary ? { preliminary } : {}),
  };
  const lite = (strategy: AnswerProfile["strategy"], retrievers = base.retrievers): AnswerProfile =>
    profileOf({ ...base, retrievers, profile: "lite", strategy, redescribedMoments: 0 });

  // "What did Dana say?" with nothing more to look for: what Dana says, summed up from Dana's own lines.
  if (speakers && restWords.length === 0) {
    const summaries: VideoSummary[] = [];
    for (const video of scope.slice(0, maxSummarised)) {
      const labels = speakers.get(video.id);
      const lines = (await context.store.getSegments(video.id, 0, Number.POSITIVE_INFINITY)).filter((segment) => segment.speaker !== undefined && labels?.has(segment.speaker));
      const names = await context.store.speakerNames(video.id);
      const summary = liteSummary({ video, chapters: [], segments: lines, length: scope.length === 1 ? "medium" : "short" });
      for (const sentence of summary.sentences) for (const citation of sentence.citations) citation.speaker = reference?.name ? names[[...(labels ?? [])][0] ?? ""] ?? [...(labels ?? [])][0] : undefined;
      summaries.push({ ...summary, text: summary.sentences.map((sentence) => `${sentence.text} ${sentence.citations.map((citation) => formatCitation(citation, citation.timesEstimated)).join(" ")}`).join("\n") });
    }
    const written = overviewText(summaries);
    options.onText?.(written.text);
    return { ...answered, ...written, warnings: [...warnings], profile: lite("summaries", []), timings: timings(performance.now()) };
  }

  // Every matching moment is an exact list, the same with a language model or without.
  if (intent === "enumeration") {
    const every = await everyMoment(context.store, question, { videoIds, videos: new Map(videos.map((video) => [video.id, video])), language });
    options.onMoments?.(every.moments);
    options.onText?.(every.text);
    return {
      ...answered,
      moments: every.moments,
      text: every.text,
      citations: every.citations,
      count: every.count,
      warnings: [...warnings, ...found.warnings],
      profile: lite("every-moment", ["bm25"]),
      timings: timings(performance.now()),
    };
  }
  // An overview is made from summaries: of the videos in scope, of the best video, or of the library as topics.
  if (intent === "overview") {
    if (scope.length === 0 && asksAboutLibrary(question)) {
      const written = topicsText(await context.topics(), new Map(videos.map((video) => [video.id, video])));
      options.onText?.(written.text);
      return { ...answered, ...written, warnings: [...warnings], profile: lite("summaries", []), timings: timings(performance.now()) };
    }
    // Unscoped: the video whose chapter is most about the question (chapters are documents of their own), else that of
    // the best moment; in a library of one video, that video.
    const [chapter] = await searchChapters(context.store, question, { limit: 1, textEmbedder: context.textEmbedder, signal: options.signal, language });
    const best = chapter?.videoId ?? moments[0]?.videoId ?? (videos.length === 1 ? videos[0]?.id : undefined);
    const targets = scope.length > 0 ? scope.slice(0, maxSummarised) : videos.filter((video) => video.id === best);
    if (targets.length > 0) {
      const summaries = await Promise.all(targets.map((video) => context.summary(video.id, targets.length === 1 ? "medium" : "short")));
      if (context.llm) {
        try {
          const written = await streamLlmAnswer({ question, evidence: summaryEvidence(summaries, targets), model: context.llm, signal: options.signal, onText: options.onText });
          return {
            ...answered,
            text: written.text,
            citations: written.citations,
            warnings: [...warnings, ...written.warnings],
            profile: profileOf({ ...base, profile: "language-model", strategy: "summaries", models: { ...base.models, answer: context.llm.id }, redescribedMoments: 0 }),
            timings: timings(performance.now()),
          };
        } catch (error) {
          const failure = toVideoRagError(error);
          if (failure.code === "INTERRUPTED" || options.signal?.aborted) throw failure;
          warnings.push({ type: "fallback", feature: "answers", detail: `${context.llm.id} failed (${failure.code}: ${failure.message}); the lite summary instead` });
        }
      }
      const written = overviewText(summaries);
      options.onText?.(written.text);
      return { ...answered, ...written, warnings: [...warnings, ...found.warnings], profile: lite("summaries"), timings: timings(performance.now()) };
    }
  }

  const llm = context.llm;
  if (llm) {
    let streamed = false;
    const onText = (delta: string): void => {
      streamed = true;
      options.onText?.(delta);
    };
    try {
      const written = await languageModelAnswer(question, llm, moments, found, context, { ...options, onText });
      return {
        ...answered,
        text: written.text,
        citations: written.citations,
        warnings: [...warnings, ...found.warnings, ...written.warnings],
        profile: profileOf({ ...base, profile: "language-model", strategy: written.strategy, models: { ...base.models, answer: llm.id }, redescribedMoments: written.redescribed }),
        timings: timings(performance.now()),
      };
    } catch (error) {
      const failure = toVideoRagError(error);
      // Half an answer already on the user's screen cannot be taken back; otherwise the extractive answer stands in.
      if (streamed || failure.code === "INTERRUPTED" || options.signal?.aborted) throw failure;
      warnings.push({ type: "fallback", feature: "answers", detail: `${llm.id} failed (${failure.code}: ${failure.message}); extractive answer instead` });
    }
  }
  if (intent === "procedure" && moments.length > 0) {
    const steps = await stepsFromMoments(question, language, moments, context, videos);
    if (steps.citations.length > 0) {
      options.onText?.(steps.text);
      return { ...answered, ...steps, warnings: [...found.warnings, ...warnings], profile: lite("steps"), timings: timings(performance.now()) };
    }
  }
  const quoted = await context.extractive(asked, moments, { maxSentences: options.maxSentences, speakers, everyVoice: reference !== undefined, language });
  const answer = withOtherLanguages(reference?.asksWho ? whoSaid(quoted) : quoted, language, scope.length > 0 ? scope : videos);
  options.onText?.(answer.text);
  return {
    ...answered,
    ...answer,
    warnings: [...found.warnings, ...warnings, ...answer.warnings],
    profile: profileOf({ ...base, profile: "lite", strategy: "extractive", redescribedMoments: 0 }),
    timings: timings(performance.now()),
  };
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });

/**
 * An answer that found nothing, with the languages the videos asked about hold besides the question's: without a
 * multilingual text embedder, words match only in their own language, so a question in English cannot find a German
 * line.
 */
function withOtherLanguages<T extends { text: string; citations: unknown[] }>(answer: T, asked: string, videos: Video[]): T {
  if (answer.citations.length > 0) return answer;
  const others = [...new Set(videos.map((video) => video.language).filter((language): language is string => language !== undefined && language !== asked))].sort();
  if (others.length === 0) return answer;
  const names = others.map((code) => languageNames.of(code) ?? code);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return { ...answer, text: `${answer.text} The library also holds videos in ${list}: a question in ${names.length === 1 ? "that language" : "their language"} may find what this one did not.` };
}

/** The videos and labels of the speakers a name refers to (as given, or without a leading "the"); undefined for none. */
async function speakersNamed(store: Store, name: string): Promise<Map<string, Set<string>> | undefined> {
  const found = new Map<string, Set<string>>();
  for (const form of speakerNameForms(name)) {
    for (const match of await store.findSpeakers(form)) found.set(match.videoId, (found.get(match.videoId) ?? new Set()).add(match.label));
  }
  return found.size > 0 ? found : undefined;
}

/** "Who said …": the speaker of each quoted line first; the plain answer, with a note, when no line has a speaker. */
function whoSaid(answer: Omit<Answer, "profile" | "timings">): Omit<Answer, "profile" | "timings"> {
  const spoken = answer.citations.filter((citation) => citation.speaker).slice(0, 3);
  if (spoken.length === 0) {
    if (answer.citations.length === 0) return answer;
    return { ...answer, warnings: [...answer.warnings, { type: "degraded", feature: "speakers", detail: "no speakers are known for these moments; the lines are quoted without who said them" }] };
  }
  const text = spoken
    .map((citation) => `${citation.speaker}: “${citation.quote.replace(/\s+/g, " ").trim()}” ${formatCitation(citation, citation.timesEstimated)}`)
    .join("\n");
  return { ...answer, text, citations: spoken };
}

/** Videos an overview answers from at most. */
const maxSummarised = 5;

/** The videos a question is about: those given (each must exist), else those it names; none for the whole library. */
function resolveScope(question: string, videos: readonly Video[], given: readonly string[] | undefined): Video[] {
  if (given && given.length > 0) {
    const byId = new Map(videos.map((video) => [video.id, video]));
    return [...new Set(given)].map((id) => {
      const video = byId.get(id);
      if (!video) throw new VideoRagError("VIDEO_NOT_FOUND", `no video "${id}" in the library`, { subject: id });
      return video;
    });
  }
  return videos.length > 1 ? namedVideos(question, videos) : [];
}

/** Steps from the videos of the best moments, in their order. */
async function stepsFromMoments(question: string, language: string, moments: Hit[], context: AnswerContext, videos: readonly Video[]): Promise<{ text: string; citations: Answer["citations"] }> {
  const order = [...new Set(moments.map((moment) => moment.videoId))].slice(0, defaultStepSettings.videos);
  const candidates: StepInput["videos"] = [];
  for (const videoId of order) {
    const video = videos.find((entry) => entry.id === videoId);
    if (!video) continue;
    candidates.push({ video, segments: await context.store.getSegments(videoId, 0, Number.POSITIVE_INFINITY), chapters: await context.store.getChapters(videoId) });
  }
  const words = analyzeText(question, language).filter((word) => !isKindCue(word));
  const { frequencies, documentCount } = await context.store.termDocumentFrequency(words);
  // Stems as the utterances' (summary/), which key words alike in every language.
  const stemFrequency = new Map<string, number>();
  for (const word of words) {
    const key = termKey(word);
    stemFrequency.set(key, Math.min(stemFrequency.get(key) ?? Number.POSITIVE_INFINITY, frequencies.get(word) ?? 0));
  }
  return stepAnswer({
    question,
    videos: candidates,
    questionStems: words.map(termKey),
    stemWeight: (stem) => Math.log(1 + (documentCount + 1) / ((stemFrequency.get(stem) ?? 0) + 1)),
  });
}

/** How a face names each lite strategy. */
const liteStrategyWords: Partial<Record<AnswerProfile["strategy"], string>> = {
  extractive: "extractive answer",
  summaries: "answer from the video summaries",
  steps: "steps from the best video",
  "every-moment": "every matching moment",
};

/** The profile line a face prints, derived from the data. */
export function profileOf(profile: Omit<AnswerProfile, "summary">): AnswerProfile {
  const models = [profile.models.dense ? `dense: ${profile.models.dense}` : "", profile.models.visual ? `visual: ${profile.models.visual}` : ""].filter(Boolean);
  const retrievers = `${profile.mode} mode: ${profile.retrievers.join("+") || "nothing found"}${models.length > 0 ? ` (${models.join(", ")})` : ""}`;
  const extracted = profile.extractedClips > 0 ? `, ${profile.extractedClips} clips extracted for this question` : "";
  const summary =
    profile.profile === "lite"
      ? `lite (${profile.retrievers.length > 0 ? `${retrievers} retrieval, ` : ""}${liteStrategyWords[profile.strategy] ?? "extractive answer"}, no language model${extracted})`
      : `${profile.models.answer} answer${profile.strategy === "frames" ? " with frames" : ""}${
          profile.redescribedMoments > 0 ? `, ${profile.redescribedMoments} moments re-described from frames` : ""
        } over ${retrievers} retrieval${extracted}`;
  return { ...profile, summary };
}

/** The language-model strategies: evidence with frames, or the best moments re-described for the question. */
async function languageModelAnswer(
  question: string,
  llm: LanguageModel,
  moments: Hit[],
  found: Retrieval,
  context: AnswerContext,
  options: AnswerOptions,
): Promise<{ text: string; citations: Answer["citations"]; warnings: Warning[]; strategy: AnswerProfile["strategy"]; redescribed: number }> {
  // Hybrid with a vision-language model: the best moments are described again for this question, from frames chosen
  // for it, and that description leads their evidence; other modes hand the frames to the answer itself.
  const redescribe = found.mode === "hybrid" && llm.capabilities.acceptsImages && options.frames !== false;
  const withFrames = llm.capabilities.acceptsImages && (options.frames === true || (options.frames !== false && !redescribe));
  const { store, imageText, signal } = { ...context, signal: options.signal };
  const descriptions = new Map<Hit, Segment>();
  if (redescribe) {
    for (const moment of moments.slice(0, redescribedMoments)) {
      const count = Math.min(context.redescribeFrames, llm.capabilities.maxImages);
      const images = await context.frames(moment.path, moment.startSecond, moment.endSecond, { count, question, imageText, signal });
      if (images.length === 0) continue;
      const transcript = (await store.getSegments(moment.videoId, moment.startSecond, moment.endSecond))
        .filter((segment) => segment.source !== "visual" && segment.source !== "caption")
        .map((segment) => segment.text)
        .join(" ");
      const text = await redescribeClip(llm, { question, keywords: found.keywords ?? [], images, transcript, signal });
      if (text) descriptions.set(moment, { startSecond: moment.startSecond, endSecond: moment.endSecond, text, source: "caption" });
    }
  }
  // Evidence is built from text read beforehand: building it is synchronous.
  const segments = new Map<Hit, Segment[]>();
  const estimated = new Map<string, boolean>();
  const ranges = await store.getSegmentRanges(moments);
  for (const [at, moment] of moments.entries()) {
    segments.set(moment, ranges[at] ?? []);
    if (!estimated.has(moment.videoId)) estimated.set(moment.videoId, await context.timesEstimated(moment.videoId));
  }
  const evidence = buildEvidence(moments, {
    speakerOf: await readSpeakerNaming(store, moments.map((moment, at) => ({ videoId: moment.videoId, segments: ranges[at] ?? [] })), { everyVoice: speakerReference(question) !== undefined }),
    segmentsOf: (moment) => {
      const description = descriptions.get(moment);
      return [...(description ? [description] : []), ...(segments.get(moment) ?? [])];
    },
    timesEstimated: (videoId) => estimated.get(videoId) ?? false,
  });
  if (withFrames) {
    let budget = llm.capabilities.maxImages;
    const done = new Set<string>();
    for (const item of evidence) {
      const key = `${item.videoId}@${item.startSecond}`;
      if (budget <= 0 || done.has(key)) continue;
      done.add(key);
      const images = await context.frames(item.path, item.startSecond, item.endSecond, { count: Math.min(framesPerMoment, budget), question, imageText, signal });
      if (images.length > 0) {
        item.images = images;
        budget -= images.length;
      }
    }
  }
  const answer = await streamLlmAnswer({ question, evidence, model: llm, signal, onText: options.onText });
  return {
    text: answer.text,
    citations: answer.citations,
    warnings: answer.warnings,
    strategy: descriptions.size > 0 ? "re-description" : withFrames ? "frames" : "language-model",
    redescribed: descriptions.size,
  };
}

/**
 * The distinct stems of the question's content words in its language, leaving out the words that only frame it ("what
 * did they say").
 */
function questionStems(question: string, language: string): Set<string> {
  return new Set(analyzeText(question, language).filter((word) => !isKindCue(word)).map(termKeyFor(language)));
}

/**
 * Whether the best moment can answer: the language model's yes for the best clip when there is one, else the light
 * rule: the best clip (with the next one, where its last sentence may run on) holds most of the question's content words.
 */
async function answersQuestion(question: string, retrieval: Retrieval, context: AnswerContext, signal?: AbortSignal): Promise<boolean> {
  const best = retrieval.clips[0];
  if (!best) return false;
  const documents: ClipDocument[] = await context.store.getClips([
    { videoId: best.videoId, clipIndex: best.clipIndex },
    { videoId: best.videoId, clipIndex: best.clipIndex + 1 },
  ]);
  if (context.llm && documents[0]) {
    try {
      const [verdict] = await judgeRelevance(context.llm, question, [documents[0]], { signal });
      return verdict === true;
    } catch (error) {
      if (signal?.aborted) throw error;
    }
  }
  const { language } = retrieval;
  const wanted = questionStems(question, language);
  if (wanted.size === 0) return true;
  const stem = termKeyFor(language);
  const held = new Set(documents.flatMap((document) => analyzeText(`${document.transcript}\n${document.screen}\n${document.visual}`, language).map(stem)));
  const covered = [...wanted].filter((stem) => held.has(stem)).length;
  return covered / wanted.size >= answeredCoverage;
}

/** The videos whose files lie at or under one of `paths`. */
async function busyVideos(store: Store, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const under = (file: string): boolean => paths.some((path) => file === path || file.startsWith(path.endsWith("/") ? path : `${path}/`));
  return new Set((await store.listVideos()).filter((video) => under(video.path)).map((video) => video.id));
}

/**
 * Plans and runs the deferred stages the question needs, round by round, within the time budget; `beforeExtracting`
 * runs once, when the first plan is made and before any clip is extracted.
 */
async function extractForQuestion(
  question: string,
  language: string,
  context: AnswerContext,
  options: AnswerOptions,
  warnings: Warning[],
  beforeExtracting: () => Promise<void>,
): Promise<AnswerExtraction | undefined> {
  const settings = context.extraction;
  if (!settings) return undefined;
  const { store } = context;
  const result: AnswerExtraction = { clips: [], seconds: 0, rounds: 0 };
  const busy = await busyVideos(store, options.busyPaths ?? []);
  const open = async (): Promise<ClipStageState[]> => (await store.clipStages({ statuses: ["pending"] })).filter((state) => !busy.has(state.videoId) && (!options.videoIds || options.videoIds.includes(state.videoId)));
  if ((await open()).length === 0) return result;
  const started = performance.now();
  const kinds = questionKinds(question);
  // A question about a person needs to know who speaks in the speech it has recognised, not once the video's is all in.
  const speakersNow = speakerReference(question) !== undefined;
  const planned = new Set<string>();
  let stepsRun = 0;
  const stepTimes = settings.stepTimes ?? new StepTimes();
  // The light index's ranking for the question, as it stands after what has been extracted so far.
  const lookAgain = (): Promise<Retrieval> =>
    context.retrieve(question, { mode: options.mode, limit: settings.maxClips * 3, signal: options.signal, videoIds: options.videoIds ? [...options.videoIds] : undefined, language });
  for (let round = 1; round <= settings.rounds; round++) {
    options.signal?.throwIfAborted();
    const left = settings.budgetSeconds - (performance.now() - started) / 1000;
    if (left <= 0) break;
    const light = await lookAgain();
    if (await answersQuestion(question, light, context, options.signal)) break;
    const pending = await open();
    if (pending.length === 0) break;
    const plan = await planExtraction({
      kinds,
      available: settings.stages,
      candidates: light.clips.map((clip) => ({ videoId: clip.videoId, clipIndex: clip.clipIndex })),
      pending,
      signals: (videoId) => store.clipSignals(videoId),
      videos: await store.listVideos(),
      exclude: planned,
      maxClips: settings.maxClips,
      relevant: context.llm ? relevanceFilter(question, context, options.signal, warnings) : undefined,
    });
    if (plan.clips.length === 0) break;
    if (round === 1) await beforeExtracting();
    for (const clip of plan.clips) planned.add(clipId(clip));
    options.onExtraction?.({ type: "plan", round, stages: plan.stages, clips: plan.clips });
    await store.markAsked(plan.clips);
    result.rounds = round;
    // The best clips first, a few at a time: once the answer holds the question, the rest of the plan is left for later.
    const steps = extractionSteps(plan, clipsPerStep);
    let rest: ExtractionStep[] = [];
    let answered = false;
    for (const [position, step] of steps.entries()) {
      const remaining = settings.budgetSeconds - (performance.now() - started) / 1000;
      // A step expected to end past the budget is left for later whole: the answer comes within the budget, not a step after it.
      const stepStarted = performance.now();
      const report = stepTimes.fits(step.stages, remaining, stepsRun === 0)
        ? await settings.extract(step.clips, step.stages, { budgetSeconds: remaining, onProgress: options.onExtraction, signal: options.signal, speakersNow })
        : undefined;
      if (report) {
        stepTimes.record(step.stages, (performance.now() - stepStarted) / 1000);
        stepsRun += 1;
      }
      for (const clip of report?.clips ?? []) {
        const known = result.clips.find((entry) => entry.videoId === clip.videoId && entry.clipIndex === clip.clipIndex);
        if (known) known.stages = [...new Set([...known.stages, ...clip.stages])];
        else result.clips.push(clip);
      }
      for (const failure of report?.failed.slice(0, 3) ?? []) {
        warnings.push({ type: "degraded", feature: failure.stage, detail: `clip ${failure.clipIndex} of ${failure.videoId}: ${failure.error}` });
      }
      if (!report || report.leftForLater > 0) {
        const reached = step.clips.length - (report?.leftForLater ?? step.clips.length);
        rest = [{ clips: step.clips.slice(reached), stages: step.stages }, ...steps.slice(position + 1)];
        break;
      }
      if (position === steps.length - 1) break;
      if (await answersQuestion(question, await lookAgain(), context, options.signal)) {
        answered = true;
        rest = steps.slice(position + 1);
        break;
      }
    }
    const leftClips = new Set(rest.flatMap((step) => step.clips.map(clipId))).size;
    if (leftClips > 0) {
      for (const step of rest) if (step.clips.length > 0) settings.later?.(step.clips, step.stages);
      result.leftForLater = (result.leftForLater ?? 0) + leftClips;
    }
    if (answered) break;
    if (leftClips > 0) {
      const where = settings.later ? "are extracted in the background while the library is open" : "were left for later";
      warnings.push({ type: "degraded", feature: "extraction", detail: `the ${settings.budgetSeconds} s extraction budget ran out; ${leftClips} planned clips ${where}` });
      break;
    }
  }
  result.seconds = Math.round(((performance.now() - started) / 1000) * 100) / 100;
  return result;
}

/** The language model's yes/no per candidate clip; a failing model keeps every candidate, with a warning. */
function relevanceFilter(question: string, context: AnswerContext, signal: AbortSignal | undefined, warnings: Warning[]) {
  return async (candidates: { videoId: string; clipIndex: number }[]): Promise<boolean[]> => {
    const llm = context.llm;
    if (!llm) return candidates.map(() => true);
    const documents = await context.store.getClips(candidates);
    try {
      const verdicts = await judgeRelevance(llm, question, documents, { signal });
      const byId = new Map(documents.map((document, index) => [`${document.videoId}#${document.index}`, verdicts[index] ?? true]));
      return candidates.map((candidate) => byId.get(clipId(candidate)) ?? true);
    } catch (error) {
      if (signal?.aborted) throw error;
      warnings.push({ type: "fallback", feature: "extraction-filter", detail: `${llm.id} could not judge the planned clips (${toVideoRagError(error).code}); all were kept` });
      return candidates.map(() => true);
    }
  };
}
