// Where model files live on this machine: one folder shared by every library, so a model is downloaded once.

import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export interface ModelsDirOptions {
  /** An explicit folder; beats the environment. */
  modelsDir?: string;
  /** The environment to read; defaults to `process.env`. Tests pass their own. */
  env?: Record<string, string | undefined>;
}

/**
 * The folder holding model files: `options.modelsDir`, else `VIDEORAG_MODELS_DIR`, else
 * `$XDG_CACHE_HOME/videorag/models`, else `~/.cache/videorag/models`. Always absolute.
 */
export function modelsDir(options: ModelsDirOptions = {}): string {
  if (options.modelsDir) return resolve(options.modelsDir);
  const env = options.env ?? process.env;
  if (env.VIDEORAG_MODELS_DIR) return resolve(env.VIDEORAG_MODELS_DIR);
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const cacheHome = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(cacheHome, "videorag", "models");
}
