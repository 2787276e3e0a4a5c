// Ingest progress for people: a live bar per video and stage on a terminal, plain lines when piped or logged.

import { basename } from "node:path";
import type { QuestionExtractionEvent } from "../answer/index.js";
import type { IngestEvent, IngestReport, IngestResult } from "../ingest/index.js";

const barWidth = 24;

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * barWidth);
  return `[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]`;
}

function describeResult(result: IngestResult): string {
  const name = basename(result.path);
  switch (result.status) {
    case "failed":
      return `✗ ${name}: ${result.error?.code ?? "INTERNAL"} ${result.error?.message ?? ""}`.trimEnd();
    case "skipped":
      return `- ${name}: skipped (${result.notes.join("; ")})`;
    case "unchanged":
      return `= ${name}: already in the library (${result.videoId})`;
    default: {
      const seconds = Object.values(result.stageSeconds).reduce((sum, value) => sum + (value ?? 0), 0);
      const notes = result.notes.length > 0 ? ` — ${result.notes.join("; ")}` : "";
      return `✓ ${name}: ${result.videoId}, ${result.durationSeconds.toFixed(1)} s, ${result.clipCount} clip${result.clipCount === 1 ? "" : "s"} in ${seconds.toFixed(1)} s${notes}`;
    }
  }
}

/** Returns the onProgress handler; writes to stderr so stdout stays clean for --json. */
export function createProgressPrinter(stream: NodeJS.WriteStream = process.stderr): (event: IngestEvent) => void {
  const live = Boolean(stream.isTTY) && !process.env.CI;
  let header = "";
  let lastDraw = 0;
  const draw = (text: string, force = false): void => {
    if (!live) return;
    const now = Date.now();
    if (!force && now - lastDraw < 80) return;
    lastDraw = now;
    const width = (stream.columns || 100) - 1;
    stream.write(`\r\x1b[2K${text.slice(0, width)}`);
  };
  const clearLine = (): void => {
    if (live) stream.write("\r\x1b[2K");
  };
  return (event) => {
    switch (event.type) {
      case "video-start":
        header = `[${event.position + 1}/${event.total}] ${basename(event.path)}`;
        draw(header, true);
        break;
      case "stage-start":
        draw(`${header} ${event.stage} ${bar(0)}`, true);
        break;
      case "stage-progress":
        draw(`${header} ${event.stage} ${bar(event.fraction)} ${Math.round(event.fraction * 100)}%`);
        break;
      case "stage-done":
        if (live) draw(`${header} ${event.stage} ${bar(1)} ${event.resumed ? "resumed" : `${event.seconds.toFixed(1)} s`}`, true);
        else if (event.stage !== "transcript") stream.write(`  ${basename(event.path)} ${event.stage}: ${event.resumed ? "resumed from an earlier run" : `${event.seconds.toFixed(2)} s`}\n`);
        break;
      case "video-done":
        clearLine();
        stream.write(`${describeResult(event.result)}\n`);
        for (const warning of event.result.warnings) stream.write(`  warning: ${warning.detail}\n`);
        break;
    }
  };
}

/** A handler for bulk transcript ingest: one line per 500 files, or a bar. */
export function createCountPrinter(stream: NodeJS.WriteStream = process.stderr): (event: IngestEvent) => void {
  const live = Boolean(stream.isTTY) && !process.env.CI;
  return (event) => {
    if (event.type === "video-start") {
      const done = event.position + 1;
      if (live && (done % 50 === 0 || done === event.total)) stream.write(`\r\x1b[2Ktranscripts ${bar(done / event.total)} ${done}/${event.total}`);
      else if (!live && (done % 1000 === 0 || done === event.total)) stream.write(`transcripts: ${done}/${event.total}\n`);
      if (live && done === event.total) stream.write("\n");
    } else if (event.type === "video-done" && event.result.status === "failed") {
      stream.write(`${live ? "\r\x1b[2K" : ""}${describeResult(event.result)}\n`);
    }
  };
}

export function formatSummary(report: IngestReport, providers: string[] = []): string {
  const ingested = report.results.filter((result) => result.status === "ingested").length;
  const unchanged = report.results.filter((result) => result.status === "unchanged").length;
  const skipped = report.results.filter((result) => result.status === "skipped").length;
  const lines = [
    `Summary: ${report.videos} video${report.videos === 1 ? "" : "s"} in the batch (${ingested} ingested, ${unchanged} unchanged), ${report.failed} failed, ${skipped} skipped`,
    `  ${report.hours.toFixed(3)} h of media, ${report.clips} clips, ${report.wallSeconds.toFixed(1)} s wall`,
  ];
  const stages = Object.entries(report.stageSeconds).filter(([, seconds]) => (seconds ?? 0) > 0);
  if (stages.length > 0) lines.push(`  seconds per stage: ${stages.map(([stage, seconds]) => `${stage} ${(seconds ?? 0).toFixed(1)}`).join(", ")}`);
  if (providers.length > 0) lines.push("  providers:", ...providers.map((provider) => `    ${provider}`));
  if (report.warnings.length > 0) lines.push(`  ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"} (shown above)`);
  return lines.join("\n");
}

/**
 * Question-time and background extraction for people: one line per round's plan, a live line per clip on a terminal
 * (plain lines when piped), and a closing line; on stderr so stdout keeps the answer.
 */
export function createExtractionPrinter(stream: NodeJS.WriteStream = process.stderr): (event: QuestionExtractionEvent) => void {
  const live = Boolean(stream.isTTY) && !process.env.CI;
  let total = 0;
  let done = 0;
  return (event) => {
    switch (event.type) {
      case "plan":
        stream.write(`extracting: round ${event.round}, ${event.clips.length} clips (${event.stages.join(", ")})\n`);
        break;
      case "extract-start":
        total = event.clips;
        done = 0;
        if (total > 0 && !live) stream.write(`extracting ${total} clips\n`);
        break;
      case "extract-batch":
        done += event.clipIndexes.length;
        if (live) stream.write(`\r\x1b[2Kextracting ${bar(total > 0 ? done / total : 1)} ${done}/${total} clips (${basename(event.path)})`);
        else stream.write(`  ${basename(event.path)}: clips ${event.clipIndexes.join(", ")} in ${event.seconds.toFixed(1)} s (${done}/${total})\n`);
        break;
      case "extract-clip":
        if (live) stream.write(`\r\x1b[2Kextracting ${bar(total > 0 ? done / total : 1)} ${done}/${total} clips: ${event.stage} ${event.done}/${event.total} (${basename(event.path)})`);
        break;
      case "extract-done":
        if (live && total > 0) stream.write("\r\x1b[2K");
        if (total > 0) stream.write(`extracted ${event.clips} clips in ${event.seconds.toFixed(1)} s\n`);
        break;
      default:
        break;
    }
  };
}
