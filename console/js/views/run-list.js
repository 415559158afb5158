// The caller's runs (GET /v1/runs): root runs newest first with their tree's status and cost, failed ones
// marked, filtered by status and agent, paged with the server's cursor; each row opens its trace in one click.

import { get, query } from "../api.js";
import { clear, field, h, when } from "../dom.js";
import { clearErrors, showError } from "../forms.js";

const STATUSES = ["", "failed", "succeeded", "running", "queued", "waiting_approval", "cancelled"];

const cost = (usd) => (usd ? `$${usd.toFixed(usd < 0.01 ? 6 : 4)}` : "–");

function row(run) {
  const trace = `#/runs/${encodeURIComponent(run.run_id)}`;
  return h("tr", { dataset: { run: run.run_id, status: run.status } },
    h("td", { class: "mono" }, when(run.created_at)),
    h("td", {}, h("span", { class: `badge ${run.status}` }, run.status)),
    h("td", {}, h("a", { href: trace }, run.input.slice(0, 80) || run.run_id),
      run.error ? h("div", { class: "field-error", dataset: { testid: "run-error" } }, run.error) : ""),
    h("td", {}, run.agent_id),
    h("td", { class: "num" }, String(run.children)),
    h("td", { class: "num" }, cost(run.cost_usd)));
}

export function runList(agents) {
  const table = h("div", { "aria-live": "polite" });
  const pager = h("div", { class: "pager" });
  const form = h("form", { class: "row", "aria-label": "Run filters", dataset: { form: "run-list" } },
    field({ label: "Filter by status", name: "list_status", field: "status", type: "select", options: STATUSES.map((s) => [s, s || "(any)"]) }),
    field({ label: "Filter by agent", name: "list_agent", field: "agent_id", type: "select", options: [["", "(any)"], ...agents.map((a) => [a.agent_id, a.label || a.agent_id])] }),
    h("div", {}, h("button", { type: "submit" }, "Show")));
  const cursors = [null]; // cursors[i] opens page i

  async function show(index) {
    clearErrors(form);
    const data = new FormData(form);
    const params = { status: data.get("list_status"), agent_id: data.get("list_agent"), limit: 25, cursor: cursors[index] };
    try {
      const result = await get(`/v1/runs${query(params)}`);
      if (result.cursor) cursors[index + 1] = result.cursor;
      else cursors.length = index + 1;
      clear(table).append(result.runs.length === 0 ? h("p", { class: "muted" }, "No run.") : h("table", { dataset: { testid: "run-table", page: String(index + 1) } },
        h("thead", {}, h("tr", {}, ["started", "status", "input", "agent", "sub-runs", "cost"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, result.runs.map(row))));
      clear(pager).append(
        h("button", { type: "button", class: "secondary", disabled: index === 0, onclick: () => show(index - 1) }, "← Newer"),
        h("span", {}, `Page ${index + 1}`),
        h("button", { type: "button", class: "secondary", disabled: !result.cursor, onclick: () => show(index + 1) }, "Older →"));
    } catch (error) {
      showError(form, error);
    }
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    cursors.length = 1;
    show(0);
  });
  const section = h("section", { "aria-labelledby": "run-list-h", dataset: { section: "run-list" } },
    h("h2", { id: "run-list-h" }, "Your runs"), form, table, pager);
  return { section, ready: show(0) };
}
