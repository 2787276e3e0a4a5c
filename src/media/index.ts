// Media layer: ffprobe/ffmpeg as child processes, subtitle parsing. Knows nothing of models or storage.
export * from "./subtitle-parse.js";
export { isInside, realPathWithin } from "./path-inside.js";
export { runProcess, spawnTied, setChildProcessNiceness, withChildProcessNiceness, type ProcessResult, type RunProcessOptions } from "./run-process.js";
export { probeMedia, checkDecodable, type MediaInfo, type SubtitleStreamInfo } from "./probe.js";
export { planClips, type PlannedClip } from "./clip-plan.js";
export {
  sampleFrames,
  sampleGapFrames,
  sameScreen,
  grayFrameAt,
  frameHash,
  hashDistance,
  thumbnailWidth,
  thumbnailHeight,
  type SampledFrame,
  type SampleFramesOptions,
  type SampleGapFramesOptions,
} from "./frame-sample.js";
export { extractAudio, type ExtractAudioOptions } from "./audio.js";
export { extractWav, openSpeechWav, readFrameEnergies, readWavLayout, requireSpeechLayout, type WavLayout } from "./wav-file.js";
export {
  quietestCut,
  speechRegionsWithin,
  speechSampleRate,
  energyFramesPerSecond,
  energyFrameSamples,
  quietWindowFrames,
  type AudioSpan,
} from "./audio-cuts.js";
export {
  decodeSubtitleBytes,
  findSidecarSubtitles,
  readSubtitleFile,
  extractTextSubtitles,
  renderBitmapSubtitles,
  readSubtitles,
  type BitmapSubtitle,
  type SubtitleResult,
  type ReadSubtitlesOptions,
} from "./subtitles.js";
export { encodeJpeg, fitWithin, sampleRgbFrames, type TimedRgbImage } from "./rgb-frames.js";
export { frameFeatures } from "./frame-features.js";
export { browserPlayback, transcodeForBrowser, writeThumbnail, type BrowserPlayback } from "./browser-media.js";
