// The planner of question-time extraction (the iRAG design): which clips are worth running the heavy stages on for this
// question, and which stages. Candidates come from the light index (BM25 over the text there is, visual words, image-text
// vectors), filtered for relevance and capped; a question the light index cannot place falls back to clips never
// extracted, those with the most speech or picture change first, spread over the videos least heard. A clip is planned
// only for stages still pending on it, so nothing is extracted twice.

import { percentile } from "../eval/latency-percentiles.js";
import type { QuestionKind } from "../retrieval/index.js";
import type { ClipSignals, ClipStageState, Video } from "../spec/index.js";

/** The stages a planner can choose; embeddings and the graph follow whatever text they change. */
export type PlannedStage = "speech" | "screen-text" | "visual";

/** The stages that can answer a question of each kind; a question of no clear kind gets the text stages and pictures. */
export function stagesForKinds(kinds: readonly QuestionKind[]): PlannedStage[] {
  if (kinds.length === 0) return ["speech", "screen-text", "visual"];
  const stages = new Set<PlannedStage>();
  for (const kind of kinds) stages.add(kind === "said" ? "speech" : kind === "written" ? "screen-text" : "visual");
  return (["speech", "screen-text", "visual"] as const).filter((stage) => stages.has(stage));
}

export interface PlanCandidate {
  videoId: string;
  clipIndex: number;
}

export interface PlanInput {
  kinds: readonly QuestionKind[];
  /** The stages this process can run; default all. */
  available?: readonly PlannedStage[];
  /** Clips the light index ranked for the question, best first. */
  candidates: PlanCandidate[];
  /** Pending (not done, not failed) stage states of the library. */
  pending: ClipStageState[];
  /** Light signals of the videos with pending work. */
  signals: (videoId: string) => ClipSignals[] | Promise<ClipSignals[]>;
  videos: Video[];
  /** Clips planned in earlier rounds of this question. */
  exclude: ReadonlySet<string>;
  maxClips: number;
  /** The language model's yes/no per candidate, when one is configured; the lite rule keeps every placed candidate. */
  relevant?: (candidates: PlanCandidate[]) => Promise<boolean[]>;
}

export interface PlannedClip extends PlanCandidate {
  /** placed: the light index found the question's words or pictures there; prior: a fallback by speech or picture change. */
  reason: "placed" | "prior";
  stages: PlannedStage[];
}

export interface ExtractionPlan {
  stages: PlannedStage[];
  clips: PlannedClip[];
}

export const clipId = (clip: PlanCandidate): string => `${clip.videoId}#${clip.clipIndex}`;

/** Some of a plan's clips and the stages to run on them, run together before the answer is looked at again. */
export interface ExtractionStep {
  clips: PlannedClip[];
  stages: PlannedStage[];
}

/**
 * The order a plan runs in, `clipsPerStep` clips a step, the best clips first. A plan of speech and pictures (a question
 * of no clear kind) hears every planned clip before it reads any clip's screen text or pictures: in a video with sound
 * the words said hold most answers, and reading a clip's pictures costs nearly as much again as hearing it, so the
 * answer said in the fifth clip is heard in a little over half the time.
 */
export function extractionSteps(plan: ExtractionPlan, clipsPerStep: number): ExtractionStep[] {
  const pictures = plan.stages.filter((stage) => stage !== "speech");
  const phases: PlannedStage[][] = plan.stages.includes("speech") && pictures.length > 0 ? [["speech"], pictures] : [plan.stages];
  const steps: ExtractionStep[] = [];
  for (const stages of phases) {
    const clips = plan.clips.filter((clip) => clip.stages.some((stage) => stages.includes(stage)));
    for (let at = 0; at < clips.length; at += clipsPerStep) steps.push({ clips: clips.slice(at, at + clipsPerStep), stages });
  }
  return steps;
}

/**
 * How long extraction steps took, to start only a step that ends within its budget. A question's first step is
 * expected to take what a typical recent step of its stages took (the median), later steps as long as the longest:
 * a question that extracts nothing answers from what it had, so one slow step (a clip heard beside background work)
 * must not keep every later question from extracting, while a step after others starts with the budget partly spent.
 * Steps of other stages stand in before one of its own has run. Kept per library, so that a question's first step of
 * pictures is expected to take what the last questions' did; the first step ever runs whatever it takes.
 */
export class StepTimes {
  private readonly recent = new Map<string, number[]>();

  constructor(private readonly kept = 5) {}

  /** Whether a step of `stages` is expected to end within `remainingSeconds`; `first`: the question's first step. */
  fits(stages: readonly PlannedStage[], remainingSeconds: number, first = false): boolean {
    const times = this.recent.get(stages.join()) ?? [...this.recent.values()].flat();
    if (times.length === 0) return remainingSeconds > 0;
    return remainingSeconds > percentile(times, first ? 50 : 100);
  }

  record(stages: readonly PlannedStage[], seconds: number): void {
    const own = this.recent.get(stages.join()) ?? [];
    own.push(seconds);
    if (own.length > this.kept) own.shift();
    this.recent.set(stages.join(), own);
  }
}

/** An unplaced clip the prior ranks: its seconds of speech and picture changes, and how many questions asked for it. */
interface Scored {
  clip: PlanCandidate;
  score: number;
  asked: number;
}

export async function planExtraction(input: PlanInput): Promise<ExtractionPlan> {
  const stages = stagesForKinds(input.kinds).filter((stage) => !input.available || input.available.includes(stage));
  const open = new Map<string, Set<PlannedStage>>();
  for (const state of input.pending) {
    if (!(stages as readonly string[]).includes(state.stage)) continue;
    const id = clipId(state);
    const set = open.get(id) ?? new Set<PlannedStage>();
    set.add(state.stage as PlannedStage);
    open.set(id, set);
  }
  const stagesOf = (clip: PlanCandidate): PlannedStage[] => [...(open.get(clipId(clip)) ?? [])];
  const available = (clip: PlanCandidate): boolean => open.has(clipId(clip)) && !input.exclude.has(clipId(clip));

  const seen = new Set<string>();
  let placed = input.candidates.filter((clip) => {
    const id = clipId(clip);
    if (seen.has(id) || !available(clip)) return false;
    seen.add(id);
    return true;
  });
  placed = placed.slice(0, input.maxClips * 2);
  if (input.relevant && placed.length > 0) {
    const verdicts = await input.relevant(placed);
    placed = placed.filter((_, index) => verdicts[index] !== false);
  }
  const clips: PlannedClip[] = placed.slice(0, input.maxClips).map((clip) => ({ ...clip, reason: "placed", stages: stagesOf(clip) }));
  if (clips.length > 0) return { stages, clips };

  // Nothing placed: clips whose stages for this kind of question never ran, the most promising first, spread over the
  // videos. A clip heard (or planned) in a video halves the promise of that video's other clips: the question's words
  // were not found there, and a video keeps to its subject, so a video not heard at all is the likelier place.
  const recency = new Map(input.videos.map((video, position) => [video.id, position]));
  const videoIds = [...new Set([...open.keys()].map((id) => id.slice(0, id.lastIndexOf("#"))))];
  const scored: Scored[] = [];
  const explored = new Map<string, number>();
  for (const videoId of videoIds) {
    const video = input.videos.find((entry) => entry.id === videoId);
    for (const signal of await input.signals(videoId)) {
      const clip = { videoId, clipIndex: signal.clipIndex };
      if (!available(clip)) {
        explored.set(videoId, (explored.get(videoId) ?? 0) + 1);
        continue;
      }
      // Unknown speech (no voice-activity detector) counts as a clip full of it when the video has sound.
      const speech = signal.speechSeconds ?? (video?.hasAudio ? 30 : 0);
      const wantsSpeech = stagesOf(clip).includes("speech");
      const wantsPictures = stagesOf(clip).some((stage) => stage !== "speech");
      const score = (wantsSpeech ? speech : 0) + (wantsPictures ? 3 * signal.screenChanges : 0);
      if (wantsSpeech && speech === 0 && !wantsPictures) continue;
      scored.push({ clip, score, asked: signal.asked ?? 0 });
    }
  }
  const promise = (entry: Scored): number => entry.score / 2 ** (explored.get(entry.clip.videoId) ?? 0);
  const before = (a: Scored, b: Scored): number =>
    promise(b) - promise(a) ||
    b.asked - a.asked ||
    (recency.get(a.clip.videoId) ?? 0) - (recency.get(b.clip.videoId) ?? 0) ||
    a.clip.clipIndex - b.clip.clipIndex;
  const chosen: PlannedClip[] = [];
  while (chosen.length < input.maxClips) {
    const best = scored.reduce<Scored | undefined>((kept, entry) => (kept && before(kept, entry) <= 0 ? kept : entry), undefined);
    if (!best) break;
    scored.splice(scored.indexOf(best), 1);
    chosen.push({ ...best.clip, reason: "prior", stages: stagesOf(best.clip) });
    explored.set(best.clip.videoId, (explored.get(best.clip.videoId) ?? 0) + 1);
  }
  return { stages, clips: chosen };
}
