// Media layer: ffprobe/ffmpeg as child processes, subtitle parsing. Knows nothing of models or storage.
export * from "./subtitle-parse.js";
