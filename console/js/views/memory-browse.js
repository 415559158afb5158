// Browse memory: the caller's namespaces with their entries counted by status (`GET /v1/memory/namespaces`),
// and one namespace's entries, newest first, filtered by status and paged with the server's cursor
// (`GET /v1/memory/documents?namespace=…&status=…&cursor=…`; deleted entries only when asked for; ../paging.js:
// every page keeps the filters it was shown with).

import { get, query } from "../api.js";
import { clear, field, h, when, scrollable } from "../dom.js";
import { cursorPaging } from "../paging.js";

const STATUSES = [["", "active and superseded"], ["active", "active"], ["superseded", "superseded"], ["deleted", "deleted"]];

function entriesTable(documents, open, page) {
  return scrollable(h("table", { dataset: { testid: "memory-entries", page: String(page) } },
    h("thead", {}, h("tr", {}, ["recorded", "content", "class", "status", "authority", "id"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, documents.map((d) => h("tr", { dataset: { memory: d.id, status: d.status } },
      h("td", { class: "mono" }, when(d.recorded_at)),
      h("td", {}, d.content.length > 160 ? `${d.content.slice(0, 160)}…` : d.content),
      h("td", {}, d.class), h("td", {}, d.status), h("td", {}, d.authority || "–"),
      h("td", {}, d.status === "deleted" ? h("span", { class: "mono" }, d.id)
        : h("button", { type: "button", class: "link mono", "aria-label": `Open memory entry ${d.id}`, onclick: () => open(d.id) }, d.id.slice(0, 12))))))));
}

/** The browse section: `refresh()` reloads the counts and the page shown; `open(id)` opens an entry. */
export function browseSection({ open }) {
  const counts = h("div", { "aria-live": "polite" });
  const listing = h("div", { hidden: true, dataset: { section: "memory-namespace" } });
  const table = h("div", { "aria-live": "polite" });
  const pager = h("div", { class: "pager" });
  const heading = h("h3", { id: "mb-list-h", tabindex: "-1" });
  const form = h("form", { class: "row", "aria-labelledby": "mb-list-h", dataset: { form: "memory-browse" } },
    field({ label: "Status", name: "status", type: "select", options: STATUSES }),
    field({ label: "Per page", name: "limit", type: "number", value: "25", min: "1", max: "200", step: "1" }),
    h("div", {}, h("button", { type: "submit" }, "Show")));
  listing.append(heading, form, pager, table);
  let namespace = null;
  const paging = cursorPaging({
    form, table, pager, pageTestId: "entries-page",
    filters: () => {
      const data = new FormData(form);
      return { namespace, status: data.get("status"), limit: data.get("limit") };
    },
    load: (params) => get(`/v1/memory/documents${query(params)}`),
    render: (page, number) => (page.documents.length ? entriesTable(page.documents, open, number)
      : h("p", { class: "muted", dataset: { page: String(number) } }, "No entry.")),
  });

  function browse(name) {
    namespace = name;
    listing.hidden = false;
    heading.textContent = `Entries of ${name}`;
    for (const b of counts.querySelectorAll("button[aria-label^='Browse ']")) {
      if (b.textContent === name) b.setAttribute("aria-current", "true");
      else b.removeAttribute("aria-current");
    }
    heading.focus();
    return paging.apply();
  }

  async function loadCounts() {
    try {
      const { namespaces } = await get("/v1/memory/namespaces");
      clear(counts).append(namespaces.length === 0 ? h("p", { class: "muted" }, "No memory yet.") : scrollable(h("table", { dataset: { testid: "namespaces" } },
        h("thead", {}, h("tr", {}, ["namespace", "active", "superseded", "deleted"].map((c, i) => h("th", { scope: "col", class: i ? "num" : null }, c)))),
        h("tbody", {}, namespaces.map((n) => h("tr", { dataset: { namespace: n.namespace } },
          h("td", {}, h("button", { type: "button", class: "link mono", "aria-label": `Browse ${n.namespace}`, "aria-current": n.namespace === namespace ? "true" : null, onclick: () => browse(n.namespace) }, n.namespace)),
          h("td", { class: "num" }, String(n.active)), h("td", { class: "num" }, String(n.superseded)), h("td", { class: "num" }, String(n.deleted))))))));
    } catch (error) {
      clear(counts).append(h("div", { class: "alert", role: "alert" }, `${error.status || ""} ${error.message}`));
    }
  }

  const node = h("section", { "aria-labelledby": "mb-h", dataset: { section: "memory-browse" } },
    h("h2", { id: "mb-h" }, "Browse"),
    h("p", { class: "muted" }, "Your namespaces and vector.global, with their entries by status. Every listing is audited."),
    counts, listing);
  return {
    node,
    loadCounts,
    refresh: async () => {
      await loadCounts();
      if (namespace) await paging.reload();
    },
  };
}
