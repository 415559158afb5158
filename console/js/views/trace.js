// The run trace view: the delegation tree of a run, and for the selected run its summary, pending
// approvals (answerable here), timeline, model calls laid out by part, memory hits and tool calls.
// While anything in the tree is unfinished it follows the run (../live.js: the long-poll of the tree's
// events) and offers to cancel it (./trace-cancel.js).

import { get, post, query, seg } from "../api.js";
import { secondsLeft } from "../auth.js";
import { announce, h, replacePreserving } from "../dom.js";
import { follow } from "../live.js";
import { FINAL, loadDetail, loadTree, nest, pendingApprovals, signature } from "../trace-data.js";
import { cancelControl } from "./trace-cancel.js";
import { fillHitTexts } from "../hit-text.js";
import { approvalsPanel, memoryHits, modelCalls, runSummary, timeline, toolCallsSection } from "./trace-sections.js";
import { treeView } from "./trace-tree.js";

const LONG_POLL_SECONDS = 20; // the API's longest wait (well inside API Gateway's 29 s)

const href = (root, id) => `#/runs/${encodeURIComponent(root)}${id && id !== root ? `/${encodeURIComponent(id)}` : ""}`;

export async function traceView(rootParam, selectedParam) {
  const node = h("div", { dataset: { view: "trace" } });
  const heading = h("h1", {}, "Run trace");
  const liveNote = h("p", { class: "live", role: "status", dataset: { testid: "live" } });
  const body = h("div");
  node.append(heading, liveNote, body);

  const finished = new Map(); // details of finished runs (they never change)
  let runs = new Map();
  let rootId = rootParam;
  let selected = selectedParam || rootParam;
  let last = "";
  let stop = null;

  async function load() {
    const first = await loadTree(rootId, runs);
    // a link to a sub-run opens its whole tree, with the sub-run selected
    const root = first.get(rootId);
    if (root.root_run_id && root.root_run_id !== rootId) {
      rootId = root.root_run_id;
      runs = await loadTree(rootId, runs);
    } else runs = first;
    if (!runs.has(selected)) selected = rootId;
    const details = new Map();
    const wanted = new Set([selected, ...[...runs.values()].filter((r) => r.status === "waiting_approval").map((r) => r.run_id)]);
    await Promise.all([...wanted].map(async (id) => details.set(id, await loadDetail(runs.get(id), finished))));
    return { runs, details };
  }

  const hitReads = new Map(); // a hit's text is read (and audited) once while the trace is open, not at each render
  function render({ runs: all, details }, force = false) {
    const sig = signature(all, details) + selected;
    if (!force && sig === last) return;
    last = sig;
    const run = all.get(selected);
    const detail = details.get(selected);
    const pending = [...all.values()]
      .filter((r) => r.status === "waiting_approval" && details.has(r.run_id))
      .map((r) => ({ run: r, calls: pendingApprovals(details.get(r.run_id).events) }))
      .filter((p) => p.calls.length);
    const childHref = (id) => href(rootId, id);
    const hitsFound = detail.events.some((e) => e.type === "memory_hits" && e.via === "auto_inject" && (e.count > 0 || (e.standing?.count ?? 0) > 0));
    replacePreserving(body, h("div", { class: "split" },
      h("aside", { class: "panel", "aria-labelledby": "tree-h", dataset: { section: "tree" } },
        h("h2", { id: "tree-h" }, "Delegation tree"),
        h("ul", { class: "tree" }, treeView(nest(all, rootId), selected, select)),
        h("p", { class: "muted" }, `${all.size} run(s) · root ${rootId}`)),
      h("div", {},
        approvalsPanel(pending, answer),
        runSummary(run, cancelControl(run, FINAL.has(run.status), cancelled)),
        h("nav", { "aria-label": "Sections of this run", class: "actions" },
          ["timeline", "model-calls", "memory-hits", "tool-calls"].map((id) => h("button", {
            type: "button",
            class: "link",
            dataset: { key: `jump-${id}` },
            onclick: () => {
              const target = body.querySelector(`[data-section="${id}"] h2`);
              target.setAttribute("tabindex", "-1");
              target.focus();
            },
          }, id.replace("-", " ")))),
        timeline(detail.events, childHref),
        modelCalls(detail, hitsFound),
        memoryHits(detail.events),
        toolCallsSection(detail, childHref))));
    fillHitTexts(body, hitReads);
  }

  let snapshot = null;
  function update(next) {
    snapshot = next;
    render(next);
    const open = [...next.runs.values()].filter((r) => !FINAL.has(r.status));
    liveNote.textContent = open.length ? `Live: ${open.length} run(s) in progress, shown as they change.` : "";
    if (!open.length) announce(`Run ${rootId} ${next.runs.get(rootId).status}`);
  }

  function select(id) {
    selected = id;
    history.replaceState(null, "", href(rootId, id));
    restart();
  }

  async function answer(run, call, decision) {
    await post(`/v1/runs/${seg(run.run_id)}/approvals`, { call_id: call.call_id, decision });
    announce(`${call.tool}: ${decision}`);
    finished.delete(run.run_id);
    restart();
  }

  function cancelled() {
    finished.clear();
    restart();
  }

  // the long-poll of the whole tree's events, never held past the token's expiry (its 401 then comes at once)
  const watch = (cursor, wait, signal, limit) =>
    get(`/v1/runs/${seg(rootId)}/events${query({ tree: "true", cursor, wait, limit })}`, { signal });
  const wait = () => Math.min(LONG_POLL_SECONDS, Math.floor(secondsLeft()));

  const done = (s) => [...s.runs.values()].every((r) => FINAL.has(r.status)) && [...s.details.values()].every((d) => d.final);
  function restart() {
    if (stop) stop();
    stop = follow(load, update, { interval: 1000, done, watch, wait, onError: (error) => { liveNote.textContent = `Could not update: ${error.message}`; } });
  }

  update(await load()); // the first load fails the view (e.g. 404) instead of following an unknown run
  if (rootId !== rootParam) history.replaceState(null, "", href(rootId, selected));
  if (!done(snapshot)) restart();
  return { node, leave: () => stop && stop() };
}
