/**
 * A render worker (see render_pool.ts): runs one job at a time with the in-process renderer and
 * answers its result or its error in a form that crosses the worker boundary.
 */
import { AppError } from "../errors/mod.ts";
import { checkSyntaxInProcess, renderInProcess, type TemplateSource } from "./render.ts";
import type { FromWorker, SentError, ToWorker, WorkerJob } from "./render_pool.ts";

/** The caller's loader failed; the caller still holds that error and throws it itself. */
class LoaderFailed extends Error {}

const host = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
};
let pendingImport: ((answer: ToWorker) => void) | null = null;

function loadImport(id: string, version: number): Promise<TemplateSource> {
  return new Promise((resolve, reject) => {
    pendingImport = (answer) => {
      if (answer.type !== "import") return;
      if (!answer.ok) reject(new LoaderFailed());
      else resolve({ body: answer.body, imports: answer.imports as TemplateSource["imports"] });
    };
    host.postMessage({ type: "load", id, version });
  });
}

function sent(error: unknown): SentError {
  if (error instanceof LoaderFailed) return { kind: "loader" };
  if (error instanceof AppError) return { kind: "app", code: error.code, details: error.details };
  if (error instanceof Error) return { kind: "other", name: error.name, message: error.message };
  return { kind: "other", name: "Error", message: String(error) };
}

async function run(job: WorkerJob): Promise<FromWorker> {
  try {
    if (job.kind === "check") {
      checkSyntaxInProcess(job.request);
      return { type: "done", result: null };
    }
    const request = job.canLoad ? { ...job.request, loadImport } : job.request;
    return { type: "done", result: await renderInProcess(request) };
  } catch (error) {
    return { type: "failed", error: sent(error) };
  }
}

host.onmessage = async ({ data }) => {
  if (data.type === "import") {
    const answer = pendingImport;
    pendingImport = null;
    answer?.(data);
    return;
  }
  const answer = await run(data.job);
  try {
    host.postMessage(answer);
  } catch (error) {
    host.postMessage({ type: "failed", error: sent(error) });
  }
};
host.postMessage({ type: "ready" });
