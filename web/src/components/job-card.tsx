// One ingest job as it runs: the upload's bytes, then a bar per video for the stage it is in (from the job's event
// stream), the results when it ends, and a button to cancel it.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, streamEvents } from "../api";
import type { Job } from "../api-types";
import { basename, plural } from "../format";
import { ErrorNotice } from "./error-notice";

/** An ingest the page started or found running: uploading until the server gives it a job id. */
export interface TrackedJob {
  key: string;
  names: string[];
  uploadFraction?: number;
  jobId?: string;
  error?: unknown;
}

const finished = new Set(["done", "failed", "cancelled"]);

/** `onChange` hears of each video the job finishes and of its end, so the library list can follow. */
export function JobCard({ tracked, onChange, onDismiss }: { tracked: TrackedJob; onChange: () => void; onDismiss: () => void }) {
  const job = useJob(tracked.jobId, onChange);
  const [cancelError, setCancelError] = useState<unknown>();
  const done = (job.value && finished.has(job.value.status)) || tracked.error !== undefined;
  const names = job.value?.inputs.length ? job.value.inputs.map(basename) : tracked.names;

  const cancel = async () => {
    if (!tracked.jobId) return;
    try {
      await api(`/api/jobs/${encodeURIComponent(tracked.jobId)}`, { method: "DELETE" });
    } catch (error) {
      setCancelError(error);
    }
  };

  return (
    <li class="job panel" data-status={job.value?.status ?? (tracked.error ? "failed" : "uploading")}>
      <div class="job-head">
        <strong class="job-names">{summarise(names)}</strong>
        <span class="job-status">{statusText(tracked, job.value)}</span>
        {done ? (
          <button type="button" class="quiet" onClick={onDismiss}>
            Dismiss
          </button>
        ) : (
          tracked.jobId && (
            <button type="button" class="quiet" onClick={cancel}>
              Cancel
            </button>
          )
        )}
      </div>
      {tracked.error !== undefined && <ErrorNotice error={tracked.error} />}
      {!tracked.jobId && tracked.error === undefined && (
        <Bar label={`Uploading ${names.length > 1 ? `${names.length} files` : (names[0] ?? "")}`} value={tracked.uploadFraction} />
      )}
      {job.value && <JobProgress job={job.value} />}
      {job.error !== undefined && <ErrorNotice error={job.error} />}
      {cancelError !== undefined && <ErrorNotice error={cancelError} />}
    </li>
  );
}

function JobProgress({ job }: { job: Job }) {
  const { progress, results } = job;
  const rows = results.map((result, index) => (
    <li key={`result-${index}`} class={`job-row result-${result.status}`}>
      <Bar label={basename(result.path)} value={1} detail={result.error ? `${result.status}: ${result.error.message}` : resultText(result.status)} />
    </li>
  ));
  if (job.status === "queued") rows.push(<li key="queued" class="job-row"><Bar label="Waiting for the jobs before it" /></li>);
  if (job.status === "running") {
    const current = progress.path ?? job.inputs[progress.position];
    const stage = progress.stage ? progress.stage.replace(/-/g, " ") : "starting";
    const fraction = progress.fraction;
    rows.push(
      <li key="current" class="job-row">
        <Bar
          label={current ? basename(current) : "Looking for videos"}
          value={fraction}
          detail={fraction !== undefined ? `${stage} ${Math.round(fraction * 100)}%` : stage}
        />
      </li>,
    );
    const waiting = progress.total - results.length - 1;
    if (waiting > 0) rows.push(<li key="waiting" class="job-row muted">{plural(waiting, "more video")} waiting</li>);
  }
  return (
    <>
      {rows.length > 0 && <ul class="job-rows">{rows}</ul>}
      {job.error && job.status !== "cancelled" && <ErrorNotice error={new ApiError(0, job.error.code, job.error.message)} />}
    </>
  );
}

/** A labelled progress bar; without a value it is indeterminate. */
function Bar({ label, value, detail }: { label: string; value?: number; detail?: string }) {
  return (
    <div class="bar">
      <div class="bar-label">
        <span>{label}</span>
        {detail && <span class="muted">{detail}</span>}
      </div>
      <progress max={1} value={value} aria-label={`${label}${detail ? `: ${detail}` : ""}`} />
    </div>
  );
}

/** Follows a job's event stream until it ends, reconnecting if the stream drops first. */
function useJob(jobId: string | undefined, onChange: () => void): { value?: Job; error?: unknown } {
  const [state, setState] = useState<{ value?: Job; error?: unknown }>({});
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    if (!jobId) return;
    const controller = new AbortController();
    let results = 0;
    const follow = async () => {
      for (let attempt = 0; attempt < 60; attempt++) {
        try {
          for await (const message of streamEvents(`/api/jobs/${encodeURIComponent(jobId)}/events`, { signal: controller.signal })) {
            if (message.event === "job") {
              const job = JSON.parse(message.data) as Job;
              setState({ value: job });
              if (finished.has(job.status)) {
                changed.current();
                return;
              }
              if (job.results.length > results) changed.current();
              results = job.results.length;
            }
            if (message.event === "end") return;
          }
        } catch (error) {
          if (controller.signal.aborted) return;
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
            setState((last) => ({ ...last, error }));
            return;
          }
        }
        if (controller.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    void follow();
    return () => controller.abort();
  }, [jobId]);
  return state;
}

function statusText(tracked: TrackedJob, job: Job | undefined): string {
  if (tracked.error !== undefined) return "failed";
  if (!job) return tracked.jobId ? "starting" : "uploading";
  if (job.status === "done") {
    const ingested = job.results.filter((result) => result.status === "ingested").length;
    const failed = job.results.filter((result) => result.status === "failed").length;
    return [`done: ${plural(ingested, "video")} added`, failed > 0 ? `${failed} failed` : ""].filter(Boolean).join(", ");
  }
  if (job.status === "running" && job.progress.total > 0) return `video ${Math.min(job.progress.position + 1, job.progress.total)} of ${job.progress.total}`;
  return job.status;
}

function resultText(status: string): string {
  return status === "ingested" ? "added" : status === "unchanged" ? "already in the library" : status;
}

function summarise(names: string[]): string {
  if (names.length <= 3) return names.join(", ");
  return `${names.slice(0, 2).join(", ")} and ${names.length - 2} more`;
}
