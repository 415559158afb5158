// The caller's runs (GET /v1/runs): root runs newest first with their tree's status and cost, failed ones
// marked, filtered by status and agent, paged with the server's cursor; each row opens its trace in one click.

import { get, query } from "../api.js";
import { field, h, when, scrollable, usd } from "../dom.js";
import { cursorPaging } from "../paging.js";
import { cancelledText } from "../trace-data.js";

const STATUSES = ["", "failed", "succeeded", "running", "queued", "waiting_approval", "cancelled"];

function row(run) {
  const trace = `#/runs/${encodeURIComponent(run.run_id)}`;
  return h("tr", { dataset: { run: run.run_id, status: run.status } },
    h("td", { class: "mono" }, when(run.created_at)),
    h("td", {}, h("span", { class: `badge ${run.status}` }, run.status)),
    h("td", {}, h("a", { href: trace }, run.input.slice(0, 80) || run.run_id),
      run.status === "cancelled" ? h("div", { class: "muted", dataset: { testid: "run-cancelled" } }, cancelledText(run))
        : run.error ? h("div", { class: "field-error", dataset: { testid: "run-error" } }, run.error) : ""),
    h("td", {}, run.agent_id),
    h("td", { class: "num" }, String(run.children)),
    h("td", { class: "num" }, usd(run.cost_usd))); // as the trace writes it: $0 is no unknown cost
}

export function runList(agents) {
  const table = h("div", { "aria-live": "polite" });
  const pager = h("div", { class: "pager" });
  const form = h("form", { class: "row", "aria-label": "Run filters", dataset: { form: "run-list" } },
    field({ label: "Filter by status", name: "list_status", field: "status", type: "select", options: STATUSES.map((s) => [s, s || "(any)"]) }),
    field({ label: "Filter by agent", name: "list_agent", field: "agent_id", type: "select", options: [["", "(any)"], ...agents.map((a) => [a.agent_id, a.label || a.agent_id])] }),
    h("div", {}, h("button", { type: "submit" }, "Show")));
  const { apply } = cursorPaging({
    form, table, pager,
    filters: () => {
      const data = new FormData(form);
      return { status: data.get("list_status"), agent_id: data.get("list_agent"), limit: 25 };
    },
    load: (params) => get(`/v1/runs${query(params)}`),
    render: (result, page) => (result.runs.length === 0 ? h("p", { class: "muted" }, "No run.") : scrollable(h("table", { dataset: { testid: "run-table", page: String(page) } },
      h("thead", {}, h("tr", {}, ["started", "status", "input", "agent", "sub-runs", "cost"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, result.runs.map(row))))),
  });
  const section = h("section", { "aria-labelledby": "run-list-h", dataset: { section: "run-list" } },
    h("h2", { id: "run-list-h" }, "Your runs"), form, table, pager);
  return { section, ready: apply() };
}
