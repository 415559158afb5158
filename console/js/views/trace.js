// The run trace view: the delegation tree of a run, and for the selected run its summary, pending
// approvals (answerable here), timeline, model calls laid out by part, memory hits and tool calls.
// While anything in the tree is unfinished it follows the run (../live.js).

import { post, seg } from "../api.js";
import { announce, badge, duration, h, number, replacePreserving } from "../dom.js";
import { follow } from "../live.js";
import { FINAL, loadDetail, loadTree, nest, pendingApprovals, signature } from "../trace-data.js";
import { approvalsPanel, memoryHits, modelCalls, runSummary, timeline, toolCallsSection } from "./trace-sections.js";

const href = (root, id) => `#/runs/${encodeURIComponent(root)}${id && id !== root ? `/${encodeURIComponent(id)}` : ""}`;

function treeView(node, selected, select, root) {
  const { run } = node;
  const tokens = run.usage ? `${number(run.usage.input_tokens)} in · ${number(run.usage.output_tokens)} out` : "";
  const button = h("button", {
    type: "button",
    class: "node",
    "aria-current": run.run_id === selected ? "true" : null,
    dataset: { key: `node-${run.run_id}`, run: run.run_id, depth: String(run.depth) },
    onclick: () => select(run.run_id),
  },
  h("span", {}, h("b", {}, run.agent_id), " ", badge(run.status)),
  h("span", { class: "meta" }, `depth ${run.depth} · ${duration(run.created_at, run.updated_at)} · ${tokens}`),
  run.usage && (run.usage.cache_read_tokens || run.usage.cache_write_tokens)
    ? h("span", { class: "meta" }, `cache ${number(run.usage.cache_read_tokens)} read / ${number(run.usage.cache_write_tokens)} write`) : null);
  return h("li", {}, button, node.children.length ? h("ul", {}, node.children.map((c) => treeView(c, selected, select, root))) : null);
}

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
    const hitsFound = detail.events.some((e) => e.type === "memory_hits" && e.via === "auto_inject" && e.count > 0);
    replacePreserving(body, h("div", { class: "split" },
      h("aside", { class: "panel", "aria-labelledby": "tree-h", dataset: { section: "tree" } },
        h("h2", { id: "tree-h" }, "Delegation tree"),
        h("ul", { class: "tree" }, treeView(nest(all, rootId), selected, select, rootId)),
        h("p", { class: "muted" }, `${all.size} run(s) · root ${rootId}`)),
      h("div", {},
        approvalsPanel(pending, answer),
        runSummary(run),
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
  }

  let snapshot = null;
  function update(next) {
    snapshot = next;
    render(next);
    const open = [...next.runs.values()].filter((r) => !FINAL.has(r.status));
    liveNote.textContent = open.length ? `Live: ${open.length} run(s) in progress, updating every second.` : "";
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

  const done = (s) => [...s.runs.values()].every((r) => FINAL.has(r.status)) && [...s.details.values()].every((d) => d.final);
  function restart() {
    if (stop) stop();
    stop = follow(load, update, { interval: 1000, done, onError: (error) => { liveNote.textContent = `Could not update: ${error.message}`; } });
  }

  update(await load()); // the first load fails the view (e.g. 404) instead of polling an unknown run
  if (rootId !== rootParam) history.replaceState(null, "", href(rootId, selected));
  if (!done(snapshot)) restart();
  return { node, leave: () => stop && stop() };
}
