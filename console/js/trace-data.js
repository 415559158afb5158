// Load a run's delegation tree and the selected run's events and recorded requests, and derive what the
// trace view shows from them (pure helpers below the loaders). Only the public API is used.

import { get, seg } from "./api.js";

export const FINAL = new Set(["succeeded", "failed", "cancelled"]);

/**
 * Fetch the tree under `rootId` (walking `children` of GET /v1/runs/{id}). Finished runs in `known` are not
 * fetched again: a final run never changes, so a poll costs one request per unfinished run.
 */
export async function loadTree(rootId, known = new Map()) {
  const runs = new Map();
  async function visit(id) {
    const cached = known.get(id);
    const run = cached && FINAL.has(cached.status) ? cached : await get(`/v1/runs/${seg(id)}`);
    runs.set(id, run);
    await Promise.all((run.children || []).map(visit));
  }
  await visit(rootId);
  return runs;
}

/** Events and requests of one run; a finished run's are taken from `cache` once loaded after it finished. */
export async function loadDetail(run, cache) {
  const hit = cache.get(run.run_id);
  if (hit && hit.final) return hit;
  const [events, context] = await Promise.all([
    get(`/v1/runs/${seg(run.run_id)}/events`),
    get(`/v1/runs/${seg(run.run_id)}/context`),
  ]);
  const detail = { runId: run.run_id, events: events.events || [], requests: context.requests || [], final: FINAL.has(run.status) };
  cache.set(run.run_id, detail);
  return detail;
}

/** The tree as nested nodes: {run, children: [node]} (children in the order the run lists them). */
export function nest(runs, rootId) {
  const node = (id) => ({ run: runs.get(id), children: (runs.get(id).children || []).filter((c) => runs.has(c)).map(node) });
  return node(rootId);
}

/** Calls still waiting for a person: approval_requested calls without a later tool_call outcome. */
export function pendingApprovals(events) {
  const settled = new Set(events.filter((e) => e.type === "tool_call" && e.status !== "requested").map((e) => e.call_id));
  return events
    .filter((e) => e.type === "approval_requested")
    .flatMap((e) => e.calls || [])
    .filter((call) => !settled.has(call.call_id));
}

/** Per request (1-based seq): the `context_built` sizes and the `model_call` usage recorded for it. */
export function callFacts(events) {
  const facts = new Map();
  for (const e of events) {
    if (e.request_seq === undefined) continue;
    const entry = facts.get(e.request_seq) || {};
    if (e.type === "context_built") Object.assign(entry, { sizes: e.blocks, cachePoints: e.cache_points, tools: e.tools });
    if (e.type === "model_call") Object.assign(entry, { usage: e.usage, stopReason: e.stop_reason });
    if (e.type === "warning") Object.assign(entry, { failed: e.message });  // a failed summary call's request
    facts.set(e.request_seq, entry);
  }
  return facts;
}

/** Tool calls with their arguments and results: events give status and errors, requests the blocks. */
export function toolCalls(events, requests) {
  const calls = new Map();
  const entry = (id) => {
    if (!calls.has(id)) calls.set(id, { call_id: id, tool: "", status: "requested", arguments: undefined, result: undefined });
    return calls.get(id);
  };
  for (const e of events) {
    if (e.type === "tool_call") Object.assign(entry(e.call_id), { tool: e.tool, status: e.status, error: e.error || entry(e.call_id).error });
    if (e.type === "approval_requested") for (const c of e.calls || []) Object.assign(entry(c.call_id), { tool: c.tool, arguments: c.arguments, approval: true });
    // a call still waiting for a person when the run was cancelled: void, never run
    if (e.type === "cancelled") for (const id of e.voided_calls || []) Object.assign(entry(id), { status: "cancelled", voided: true });
    if (e.type === "delegation_started" || e.type === "delegation_finished") {
      if (e.call_id) Object.assign(entry(e.call_id), { child_run_id: e.child_run_id, child_agent: e.agent_id, outcome: e.outcome });
    }
  }
  for (const request of requests) {
    for (const message of request.messages || []) {
      for (const block of message.content || []) {
        if (block.toolUse && calls.has(block.toolUse.toolUseId)) entry(block.toolUse.toolUseId).arguments = block.toolUse.input;
        if (block.toolResult && calls.has(block.toolResult.toolUseId)) {
          entry(block.toolResult.toolUseId).result = (block.toolResult.content || []).map((c) => c.text ?? JSON.stringify(c)).join("\n");
        }
      }
    }
  }
  return [...calls.values()];
}

/** Why a cancelled run ended, as a sentence: "Cancelled by its owner", "Cancelled with run …". */
export const cancelledText = (run) => {
  const reason = run.error || "cancelled";
  return reason.charAt(0).toUpperCase() + reason.slice(1);
};

/** A short human line per event for the timeline. */
export function describe(e) {
  const usage = (u) => (u ? `in ${u.input_tokens} · out ${u.output_tokens} · cache read ${u.cache_read_tokens} · cache write ${u.cache_write_tokens}` : "");
  switch (e.type) {
    case "run_started": return `agent ${e.agent_id}${e.task_id ? ` · task ${e.task_id}` : ""} · depth ${e.depth}`;
    case "memory_hits": return `${e.via === "tool" ? "memory-search tool" : "auto-inject"}: ${e.count} hit(s) from ${(e.namespaces || []).join(", ") || "no namespace"}${e.standing ? ` · ${e.standing.count} standing` : ""}`;
    case "context_built": return `request #${e.request_seq} · ${e.cache_points} cache point(s) · tools: ${(e.tools || []).join(", ") || "none"}`;
    case "model_call": return e.purpose === "summary"
      ? `rolling summary${e.request_seq ? ` · request #${e.request_seq}` : ""} · ${usage(e.usage)}`
      : `request #${e.request_seq} · ${e.stop_reason} · ${usage(e.usage)}`;
    case "tool_call": return `${e.tool} ${e.status} (${e.call_id})${e.error ? ` — ${e.error}` : ""}`;
    case "delegation_started": return `to ${e.agent_id} at depth ${e.depth}`;
    case "delegation_finished": return `${e.agent_id} at depth ${e.depth}: ${e.outcome || ""}`;
    case "approval_requested": return `waiting for a person: ${(e.calls || []).map((c) => c.tool).join(", ")}`;
    case "memory_write_skipped": return `auto-write skipped (${e.source}): ${String(e.reason || "").replace(/_/g, " ")}`;
    case "memory_write_queued": return `${e.count} entr${e.count === 1 ? "y" : "ies"} queued (${(e.sources || []).join(", ")})`;
    case "warning": return e.message || "";
    case "cancelled": return `${e.reason || "cancelled"}${(e.voided_calls || []).length ? ` · call(s) no longer waiting: ${e.voided_calls.join(", ")}` : ""}`;
    case "error": return e.message || e.error || "";
    case "completed": return `${e.status} · ${usage(e.usage)}`;
    default: return "";
  }
}

/** Changes of this signature are what a poll must re-render. */
export function signature(runs, details) {
  return JSON.stringify([[...runs.values()].map((r) => [r.run_id, r.status, r.updated_at]), [...details.entries()].map(([id, d]) => [id, d.events.length, d.requests.length])]);
}
