// The memory forms: search (with similarity and relevance), write an entry, delete an entry by id. Every
// delete names what it cascades to before it is confirmed (./memory-entry.js); a search hit opens in the
// entry panel.

import { post } from "../api.js";
import { announce, clear, field, h, when, scrollable } from "../dom.js";
import { clearErrors, listOf, showError } from "../forms.js";
import { cascadeOf, cascadeText, deleteEntry } from "./memory-entry.js";
import { explanationPanel } from "./memory-explain.js";

/** Ask (naming the cascade) and delete; false when the person kept it. */
async function confirmedDelete(id, namespace) {
  const { entry, derived } = await cascadeOf(id);
  if (!window.confirm(cascadeText(entry, derived))) return false;
  await deleteEntry(id, namespace);
  announce(`memory entry ${id} deleted${derived.length ? ` with ${derived.length} derived` : ""}`);
  return true;
}

function resultsTable(hits, onDelete, open) {
  return scrollable(h("table", { dataset: { testid: "memory-results" } },
    h("thead", {}, h("tr", {}, ["content", "namespace", "similarity", "relevance", "stored", "id", ""].map((c, i) => h("th", { scope: "col", class: i === 2 || i === 3 ? "num" : null }, c)))),
    h("tbody", {}, hits.map((hit) => h("tr", { dataset: { memory: hit.id } },
      h("td", {}, hit.content), h("td", { class: "mono" }, hit.namespace),
      h("td", { class: "num" }, hit.similarity.toFixed(4)), h("td", { class: "num" }, hit.relevance.toFixed(4)),
      h("td", {}, when(hit.created_at)),
      h("td", {}, h("button", { type: "button", class: "link mono", "aria-label": `Open memory entry ${hit.id}`, onclick: () => open(hit.id) }, hit.id.slice(0, 12))),
      h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Delete memory entry ${hit.id}`, onclick: (event) => onDelete(hit, event.target) }, "Delete")))))));
}

export function searchForm({ open, changed }) {
  const results = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "stack", "aria-labelledby": "ms-h", dataset: { form: "memory-search" } },
    h("h2", { id: "ms-h" }, "Search"),
    h("div", { class: "row" },
      field({ label: "Query", name: "query", required: true, hint: "a whole sentence works best" }),
      field({ label: "top_k", name: "top_k", type: "number", value: "5", step: "1" }),
      h("div", { class: "checks" }, h("label", {}, h("input", { type: "checkbox", name: "explain" }), "Explain (what was not recalled, and why)"))),
    field({ label: "Namespaces (optional)", name: "namespaces", type: "textarea", rows: 2, hint: "one a line; empty: all of yours and vector.global.*" }),
    h("div", {}, h("button", { type: "submit" }, "Search")));
  async function run() {
    clearErrors(form);
    const data = new FormData(form);
    const body = { query: data.get("query"), top_k: Number(data.get("top_k") || 5) };
    const namespaces = listOf(data.get("namespaces"));
    if (namespaces.length) body.namespaces = namespaces;
    if (data.get("explain")) body.explain = true;
    try {
      const found = await post("/v1/memory/search", body);
      clear(results).append(...[
        h("p", { class: "muted" }, `${found.hits.length} hit(s) · searched ${found.namespaces.join(", ") || "nothing"}${found.message ? ` · ${found.message}` : ""}`),
        found.hits.length ? resultsTable(found.hits, async (hit, button) => {
          button.disabled = true;
          try {
            if (!(await confirmedDelete(hit.id, hit.namespace))) {
              button.disabled = false;
              return;
            }
            await run();
            changed();
          } catch (error) {
            button.disabled = false;
            showError(form, error);
          }
        }, open) : null,
        found.explanation ? explanationPanel(found.explanation) : null].filter(Boolean));
    } catch (error) {
      clear(results);
      showError(form, error);
    }
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); run(); });
  return [form, results];
}

export function writeForm({ changed }) {
  const form = h("form", { class: "stack", "aria-labelledby": "mw-h", dataset: { form: "memory-write" } },
    h("h2", { id: "mw-h" }, "Write an entry"),
    h("div", { class: "row" },
      field({ label: "Namespace", name: "namespace", required: true, value: "vector.user.${user_id}.memory", hint: "${user_id} is you" }),
      field({ label: "Tags", name: "tags", hint: "comma-separated, optional" }),
      field({ label: "Expires after (seconds)", name: "ttl_seconds", field: "ttl_seconds", type: "number", step: "1", hint: "optional, ≥ 60" })),
    field({ label: "Content", name: "content", type: "textarea", rows: 3, required: true }),
    h("div", {}, h("button", { type: "submit" }, "Write")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const body = { namespace: data.get("namespace"), content: data.get("content"), tags: listOf(data.get("tags")) };
    if (String(data.get("ttl_seconds") || "").trim()) body.ttl_seconds = Number(data.get("ttl_seconds"));
    try {
      const written = await post("/v1/memory/documents", body);
      form.append(h("p", { class: "note", role: "status", dataset: { formMessage: "" } }, `Written to ${written.namespace}: `, h("code", { dataset: { testid: "written-id" } }, written.ids.join(", "))));
      changed();
    } catch (error) {
      showError(form, error);
    }
  });
  return form;
}

export function deleteForm({ changed }) {
  const form = h("form", { class: "stack", "aria-labelledby": "md-h", dataset: { form: "memory-delete" } },
    h("h2", { id: "md-h" }, "Delete an entry by id"),
    h("div", { class: "row" },
      field({ label: "Entry id", name: "id", field: "id", required: true, autocomplete: "off" }),
      field({ label: "Namespace (optional)", name: "namespace", field: "namespace" })),
    h("div", {}, h("button", { type: "submit", class: "danger" }, "Delete")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const id = String(data.get("id") || "").trim();
    if (!id) return;
    try {
      if (!(await confirmedDelete(id, String(data.get("namespace") || "").trim() || undefined))) return;
      changed();
      form.append(h("p", { class: "note", role: "status", dataset: { formMessage: "" } }, `Deleted ${id}.`));
    } catch (error) {
      showError(form, error);
    }
  });
  return form;
}

