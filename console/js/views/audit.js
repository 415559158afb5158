// The audit trail (GET /v1/audit): the caller's records, newest first, filtered by run, namespace and
// action, paged with the server's cursor (../paging.js: every page keeps the filters it was shown with).

import { get, query } from "../api.js";
import { field, h, json, when, scrollable } from "../dom.js";
import { cursorPaging } from "../paging.js";

// every action the API records (mneme.models.audit.AuditAction)
const ACTIONS = ["", "read", "write", "update", "delete", "denied", "delegation", "delegation_refused", "approval", "cancel", "preview", "export", "erasure", "config"];

/** A record's run: a link to its trace, or — a context preview, which has none — its id as text, marked. */
const runCell = (id) => (!id ? "–" : id.startsWith("preview-")
  ? h("span", { dataset: { testid: "preview-run" } }, id.slice(0, 16), h("span", { class: "muted" }, " (preview, no trace)"))
  : h("a", { href: `#/runs/${encodeURIComponent(id)}` }, id.slice(0, 12)));

export async function auditView() {
  const table = h("div", { "aria-live": "polite" });
  const pager = h("div", { class: "pager" });
  const form = h("form", { class: "row", "aria-label": "Audit filters", dataset: { form: "audit" } },
    field({ label: "Run id", name: "run_id", field: "run_id", autocomplete: "off" }),
    field({ label: "Namespace", name: "namespace", field: "namespace" }),
    field({ label: "Action", name: "action", field: "action", type: "select", options: ACTIONS.map((a) => [a, a || "(any)"]) }),
    field({ label: "Per page", name: "limit", field: "limit", type: "number", value: "25", step: "1" }),
    h("div", {}, h("button", { type: "submit" }, "Show")));
  const { apply } = cursorPaging({
    form, table, pager, pageTestId: "page",
    filters: () => {
      const data = new FormData(form);
      return { run_id: data.get("run_id").trim(), namespace: data.get("namespace").trim(), action: data.get("action"), limit: data.get("limit") };
    },
    load: (params) => get(`/v1/audit${query(params)}`),
    render: (result, page) => (result.records.length === 0 ? h("p", { class: "muted" }, "No record.") : scrollable(h("table", { dataset: { testid: "audit-table", page: String(page) } },
      h("thead", {}, h("tr", {}, ["when", "action", "namespace", "run", "agent", "depth", "detail"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, result.records.map((r) => h("tr", { dataset: { action: r.action } },
        h("td", { class: "mono" }, when(r.at)), h("td", {}, h("b", {}, r.action)), h("td", { class: "mono" }, r.namespace || "–"),
        h("td", { class: "mono" }, runCell(r.run_id)),
        h("td", {}, r.agent_id || "–"), h("td", { class: "num" }, String(r.depth)),
        h("td", {}, Object.keys(r.detail || {}).length ? json(r.detail) : "–"))))))),
  });
  const node = h("div", { dataset: { view: "audit" } }, h("h1", {}, "Audit trail"),
    h("p", { class: "muted" }, "Who read or wrote which memory namespace, delegations and approvals — your records only, newest first."),
    form, pager, table);
  await apply();
  return { node };
}
