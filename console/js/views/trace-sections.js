// The sections of the trace view for one run: summary, approvals, timeline, model calls, memory hits and
// tool calls. Every function returns elements; the data comes from ../trace-data.js.

import { h, badge, number, duration, json, shortVersion, usd, when, scrollable } from "../dom.js";
import { inSaidOrder } from "../hit-text.js";
import { callFacts, cancelledText, describe, toolCalls } from "../trace-data.js";
import { requestView, summaryRequestView } from "./request-view.js";
import { continueHref } from "./runs.js";

const usageText = (u) => (u ? `${number(u.input_tokens)} in · ${number(u.output_tokens)} out · cache ${number(u.cache_read_tokens)} read / ${number(u.cache_write_tokens)} write` : "–");

export function runSummary(run, controls = null) {
  const items = [
    ["Status", h("span", { dataset: { testid: "status" } }, badge(run.status))],
    ["Agent", h("span", {}, h("a", { href: `#/agents/${encodeURIComponent(run.agent_id)}` }, run.agent_id),
      run.agent_version ? h("span", { class: "muted", dataset: { testid: "agent-version" } }, ` · version ${shortVersion(run.agent_version)}`) : null)],
    ["Task", run.task_id || "–"],
    ["Depth", String(run.depth)],
    ["Duration", duration(run.created_at, run.updated_at)],
    ["Started", when(run.created_at)],
    ["Tokens (this run)", usageText(run.usage)],
    ["Tokens (whole tree)", usageText(run.tree_usage)],
    ["Cost (this run)", run.usage ? usd(run.usage.cost_usd) : "–"],
    ["Cost (whole tree)", run.tree_usage ? usd(run.tree_usage.cost_usd) : "–"],
    ["Chat", chatCell(run)],
    ["Parent", run.parent_run_id || "–"],
  ];
  return h("section", { "aria-labelledby": "sum-h", dataset: { section: "summary" } },
    h("h2", { id: "sum-h" }, `Run ${run.run_id}`),
    controls,
    h("dl", { class: "summary-grid" }, items.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v)))),
    run.output ? [h("h3", {}, "Output"), h("pre", { class: "panel", dataset: { testid: "output" } }, run.output)] : null,
    run.status === "cancelled" ? h("div", { class: "note", dataset: { testid: "cancelled" } }, cancelledText(run))
      : run.error ? h("div", { class: "alert", role: "alert" }, `Error: ${run.error}`) : null);
}

/** Pending approvals across the tree: [{run, calls}], each call answerable once / always / deny. */
// A sub-agent's run shares its root's chat: continuing it from here would add the sub-agent's turn to the root
// agent's conversation, so the link goes to the root run, whose trace offers to continue the chat.
function chatCell(run) {
  if (!run.chat_id) return "–";
  if (run.parent_run_id) {
    return h("span", {}, run.chat_id, " · ",
      h("a", { href: `#/runs/${encodeURIComponent(run.root_run_id)}` }, "the root run's chat"));
  }
  return h("span", {}, run.chat_id, " · ", h("a", { href: continueHref(run.agent_id, run.chat_id) }, "Continue this chat"));
}

export function approvalsPanel(pending, answer) {
  if (!pending.length) return null;
  return h("section", { class: "warn", "aria-labelledby": "appr-h", dataset: { section: "approvals" } },
    h("h2", { id: "appr-h" }, "Waiting for your approval"),
    pending.map(({ run, calls }) => calls.map((call) => {
      const status = h("p", { class: "field-error", role: "alert" });
      const choose = (decision) => async (event) => {
        const buttons = event.target.closest("[data-call]").querySelectorAll("button");
        buttons.forEach((b) => { b.disabled = true; });
        status.textContent = "";
        try {
          await answer(run, call, decision);
        } catch (error) {
          status.textContent = error.message;
          buttons.forEach((b) => { b.disabled = false; });
        }
      };
      return h("div", { class: "panel", dataset: { call: call.call_id } },
        h("p", {}, h("b", {}, call.tool), ` in run ${run.run_id} (agent ${run.agent_id}, depth ${run.depth}) · `, h("span", { class: "mono" }, call.call_id)),
        h("details", { open: true, dataset: { key: `args-${call.call_id}` } }, h("summary", {}, "Arguments"), json(call.arguments)),
        h("div", { class: "actions" },
          h("button", { type: "button", onclick: choose("once"), dataset: { key: `approve-${call.call_id}-once` } }, "Allow once"),
          h("button", { type: "button", class: "secondary", onclick: choose("always"), dataset: { key: `approve-${call.call_id}-always` } }, `Always allow ${call.tool} in this run`),
          h("button", { type: "button", class: "danger", onclick: choose("deny"), dataset: { key: `approve-${call.call_id}-deny` } }, "Deny")),
        status);
    })));
}

export function timeline(events, childHref) {
  const start = events.length ? new Date(events[0].at) : null;
  return h("section", { "aria-labelledby": "tl-h", dataset: { section: "timeline" } },
    h("h2", { id: "tl-h" }, "Timeline"),
    events.length === 0 ? h("p", { class: "muted" }, "No events yet.") : scrollable(h("table", {},
      h("caption", { class: "visually-hidden" }, "The run's events in order"),
      h("thead", {}, h("tr", {}, h("th", { class: "num", scope: "col" }, "#"), h("th", { class: "num", scope: "col" }, "+time"), h("th", { scope: "col" }, "event"), h("th", { scope: "col" }, "details"))),
      h("tbody", {}, events.map((e) => h("tr", { dataset: { event: e.type } },
        h("td", { class: "num" }, String(e.seq)),
        h("td", { class: "num" }, start ? `${((new Date(e.at) - start) / 1000).toFixed(3)} s` : ""),
        h("td", {}, h("code", {}, e.type)),
        h("td", {}, describe(e), e.child_run_id ? [" · ", h("a", { href: childHref(e.child_run_id) }, `open ${e.child_run_id}`)] : null)))))));
}

export function modelCalls(detail, hasMemoryHits) {
  const facts = callFacts(detail.events);
  const count = detail.requests.length;
  return h("section", { "aria-labelledby": "mc-h", dataset: { section: "model-calls" } },
    h("h2", { id: "mc-h" }, `Model calls (${count})`),
    count === 0 ? h("p", { class: "muted" }, "No model call recorded yet.") : detail.requests.map((request, index) => {
      const seq = index + 1;
      const fact = facts.get(seq) || {};
      const u = fact.usage;
      const tokens = u ? `${number(u.input_tokens)} in / ${number(u.output_tokens)} out · cache read ${number(u.cache_read_tokens)} · cache write ${number(u.cache_write_tokens)}` : "";
      const dataset = { key: `req-${detail.runId}-${seq}`, request: String(seq) };
      if (request.purpose === "summary") {  // the rolling summary's call, made before the run's own (SPEC §4)
        return h("details", { open: seq === count, dataset: { ...dataset, purpose: "summary" } },
          h("summary", {}, h("b", {}, `Model call ${seq}`), ` — rolling summary of the chat's older messages · ${fact.failed || tokens}`),
          summaryRequestView(request, { usage: u }));
      }
      return h("details", { open: seq === count, dataset },
        h("summary", {}, h("b", {}, `Model call ${seq}`), ` — ${fact.stopReason || "no answer recorded"} · ${tokens}`),
        requestView(request, { sizes: fact.sizes, usage: u, stopReason: fact.stopReason, hasMemory: hasMemoryHits }));
    }));
}

const DROP_REASONS = [
  ["min_score", (t) => `below min_score${t ? ` (${t.min_score})` : ""}`],
  ["duplicate", () => "duplicate content (the best copy was kept)"],
  ["relative_cutoff", (t) => `below relative_cutoff${t ? ` (${t.relative_cutoff} × the best)` : ""}`],
  ["top_k", (t) => `beyond top_k${t ? ` (${t.top_k})` : ""}`],
  ["unusable", () => "deleted, superseded or expired"],
];

// a hit's text and, for a chat line, the lines said around it as the run's model read them (the event's ``lines``:
// ids and offsets), muted, in the order they were said; each text is read by its id (hit-text.js)
function said(hit) {
  const text = (id, attrs = {}, dataset = {}) => h("div", { ...attrs, dataset: { ...dataset, hitText: id } }, h("span", { class: "muted" }, "loading…"));
  const line = (l) => text(l.id, { class: "muted" }, { testid: "hit-line", offset: String(l.offset) });
  const lines = (hit.lines || []).filter((l) => typeof l === "object");
  return inSaidOrder(text(hit.id), lines, line);
}

// the entries of the policy's standing namespaces, shown whatever the question, first in the memory context
function standingEntries(standing) {
  const left = standing.left_out ? ` · left out: ${standing.left_out} (the newest 10 entries, 1,500 characters are shown)` : "";
  return h("div", { dataset: { testid: "standing" } },
    h("h4", {}, "Standing entries (every run, whatever the question)"),
    h("p", { class: "kv" }, h("span", {}, "read: ", h("b", {}, (standing.namespaces || []).join(", ") || "nothing")),
      h("span", {}, "shown: ", h("b", {}, String(standing.count)), left)),
    standing.ids.length ? h("ol", {}, standing.ids.map((id) => h("li", {}, ...said({ id })))) : null);
}

export function memoryHits(events) {
  const found = events.filter((e) => e.type === "memory_hits");
  return h("section", { "aria-labelledby": "mh-h", dataset: { section: "memory-hits" } },
    h("h2", { id: "mh-h" }, "Memory hits"),
    found.length === 0 ? h("p", { class: "muted" }, "No memory was searched in this run.") : found.map((e) => h("div", { class: "panel", dataset: { via: e.via } },
      h("h3", {}, e.via === "tool" ? "memory-search tool" : "Auto-inject", h("span", { class: "muted" }, ` · event #${e.seq}`)),
      h("p", { class: "kv" },
        h("span", {}, "searched: ", h("b", {}, (e.namespaces || []).join(", ") || "nothing")),
        e.candidates !== undefined ? h("span", {}, "candidates: ", h("b", {}, `${e.candidates}`), ` (k = ${e.k})`) : null,
        h("span", {}, "hits: ", h("b", {}, String(e.count)))),
      e.standing ? standingEntries(e.standing) : null,
      (e.hits || []).length ? scrollable(h("table", {},
        h("thead", {}, h("tr", {}, ["#", "text", "id", "namespace", "similarity", "relevance"].map((c, i) => h("th", { scope: "col", class: i >= 4 ? "num" : null }, c)))),
        h("tbody", {}, e.hits.map((hit, i) => h("tr", {},
          h("td", {}, String(i + 1)), h("td", {}, ...said(hit)),
          h("td", { class: "mono" }, hit.id), h("td", { class: "mono" }, hit.namespace),
          h("td", { class: "num" }, hit.similarity !== undefined ? hit.similarity.toFixed(4) : "–"),
          h("td", { class: "num" }, hit.relevance.toFixed(4))))))) : null,
      e.dropped ? h("div", {}, h("h4", {}, "Why others were dropped"), h("ul", { dataset: { testid: "dropped" } },
        DROP_REASONS.filter(([key]) => e.dropped[key] > 0).map(([key, text]) => h("li", { dataset: { reason: key } }, `${e.dropped[key]} ${text(e.thresholds)}`)),
        Object.values(e.dropped).every((n) => !n) ? h("li", {}, "none: every candidate became a hit") : null))
        : h("p", { class: "muted" }, "This event predates the ranking details."),
      (e.denied || []).length ? h("div", { class: "alert" }, h("b", {}, "Denied namespaces"), h("ul", {}, e.denied.map((d) => h("li", {}, h("code", {}, d.namespace), ` — ${d.reason.replace(/_/g, " ")}`)))) : null)));
}

export function toolCallsSection(detail, childHref) {
  const calls = toolCalls(detail.events, detail.requests);
  return h("section", { "aria-labelledby": "tc-h", dataset: { section: "tool-calls" } },
    h("h2", { id: "tc-h" }, `Tool calls (${calls.length})`),
    calls.length === 0 ? h("p", { class: "muted" }, "No tool was called.") : scrollable(h("table", {},
      h("thead", {}, h("tr", {}, ["tool", "status", "arguments", "result"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, calls.map((c) => h("tr", { dataset: { call: c.call_id } },
        h("td", {}, h("b", {}, c.tool), h("br"), h("span", { class: "mono muted" }, c.call_id),
          c.child_run_id ? [h("br"), h("a", { href: childHref(c.child_run_id) }, `sub-run ${c.child_agent || ""}`)] : null),
        h("td", {}, badge(c.status), c.voided ? h("div", { class: "muted" }, "asked a person; the run was cancelled before an answer")
          : c.approval ? h("div", { class: "muted" }, "asked a person") : null),
        h("td", {}, c.arguments !== undefined ? json(c.arguments) : h("span", { class: "muted" }, "–")),
        h("td", {}, c.error ? h("pre", { class: "field-error" }, c.error) : c.result !== undefined ? h("pre", {}, c.result) : h("span", { class: "muted" }, "–"))))))));
}
