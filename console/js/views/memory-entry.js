// One memory entry: its detail (`GET /v1/memory/documents/{id}?derived=true`, superseded ones too) with the
// entries a delete would cascade to, and the delete itself (`DELETE /v1/memory/documents/{id}`), which names
// those derived entries BEFORE it is confirmed. `cascadeOf` serves the other delete paths of the view.

import { del, get, query, seg } from "../api.js";
import { announce, clear, h, json, when } from "../dom.js";
import { historySection } from "./memory-history.js";

/** The entry and the ids its delete would also delete (live entries derived from it, transitively). */
export async function cascadeOf(id) {
  const entry = await get(`/v1/memory/documents/${seg(id)}${query({ derived: "true" })}`);
  return { entry, derived: entry.derived || [] };
}

export async function deleteEntry(id, namespace) {
  await del(`/v1/memory/documents/${seg(id)}${query({ namespace })}`);
}

/** "Delete X?" with what else goes, for a confirm dialog. */
export function cascadeText(entry, derived) {
  const what = `Delete "${entry.content.slice(0, 60)}"`;
  return derived.length ? `${what} and the ${derived.length} entr${derived.length === 1 ? "y" : "ies"} derived from it (${derived.join(", ")})?` : `${what}?`;
}

const idButton = (id, open, label) => h("button", { type: "button", class: "link mono", "aria-label": `${label} ${id}`, onclick: () => open(id) }, id);

function facts(entry) {
  const rows = [
    ["Namespace", h("code", {}, entry.namespace)],
    ["Status", h("span", { class: `badge ${entry.status === "active" ? "success" : "waiting_approval"}` }, entry.status)],
    ["Class", entry.class],
    ["Authority", entry.authority || "–"],
    ["Recorded", when(entry.recorded_at)],
    ["Updated", when(entry.updated_at)],
    ["Observed", when(entry.observed_at)],
    ["Expires", when(entry.expires_at)],
    ["Tags", (entry.tags || []).join(", ") || "–"],
    ["Superseded by", entry.superseded_by || "–"],
  ];
  if (entry.chunk_count) rows.push(["Chunk", `${(entry.chunk_index ?? 0) + 1} of ${entry.chunk_count} (of ${entry.parent_id || entry.id})`]);
  return h("dl", { class: "summary-grid" }, rows.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v))));
}

/**
 * The detail panel: `show(id)` opens an entry in it; `onDeleted(ids)` is called after a delete (the entry and
 * its cascade), so the list and the counts can be refreshed.
 */
export function entryPanel({ onDeleted }) {
  const node = h("section", { class: "panel", "aria-labelledby": "me-h", dataset: { section: "memory-entry" }, hidden: true });

  function confirmation(entry, derived, status) {
    const box = h("div", { class: "warn", role: "group", "aria-labelledby": "me-confirm-h", dataset: { testid: "cascade" } },
      h("h3", { id: "me-confirm-h" }, derived.length ? `Deleting this entry also deletes ${derived.length} derived entr${derived.length === 1 ? "y" : "ies"}` : "Deleting this entry deletes nothing else"),
      derived.length ? h("ul", { dataset: { testid: "cascade-ids" } }, derived.map((id) => h("li", { class: "mono", dataset: { derived: id } }, id))) : null,
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger", dataset: { key: "confirm-delete" }, onclick: async (event) => {
          event.target.disabled = true;
          try {
            await deleteEntry(entry.id, entry.namespace);
            const gone = [entry.id, ...derived];
            announce(`deleted ${gone.length} memory entr${gone.length === 1 ? "y" : "ies"}`);
            clear(node).append(h("h2", { id: "me-h", tabindex: "-1" }, "Entry deleted"),
              h("p", { class: "note", role: "status", dataset: { testid: "deleted" } }, `Deleted ${entry.id}${derived.length ? ` and ${derived.length} derived: ${derived.join(", ")}` : ""}.`));
            node.querySelector("h2").focus();
            address(null);
            onDeleted(gone);
          } catch (error) {
            event.target.disabled = false;
            status.textContent = error.message;
          }
        } }, `Delete ${derived.length + 1} entr${derived.length ? "ies" : "y"}`),
        h("button", { type: "button", class: "secondary", onclick: () => { box.remove(); node.querySelector("[data-key=delete]").focus(); } }, "Keep")));
    return box;
  }

  /** The address bar names the open entry (a link to it can be shared or reloaded), without a new route. */
  function address(id) {
    const hash = id ? `#/memory/${encodeURIComponent(id)}` : "#/memory";
    if (window.location.hash !== hash) window.history.replaceState(null, "", hash);
  }

  async function show(id) {
    address(id);
    node.hidden = false;
    clear(node).append(h("h2", { id: "me-h" }, "Memory entry"), h("p", { class: "muted", role: "status" }, "Loading…"));
    let entry;
    let derived;
    try {
      ({ entry, derived } = await cascadeOf(id));
    } catch (error) {
      clear(node).append(h("h2", { id: "me-h" }, "Memory entry"), h("div", { class: "alert", role: "alert" }, `${error.status || ""} ${error.message}`),
        historySection(id));
      return;
    }
    const status = h("p", { class: "field-error", role: "alert" });
    const actions = h("div", { class: "actions" });
    actions.append(h("button", { type: "button", class: "danger", dataset: { key: "delete" }, "aria-describedby": "me-cascade-h",
      onclick: () => { if (!node.querySelector("[data-testid=cascade]")) actions.after(confirmation(entry, derived, status)); node.querySelector("[data-key=confirm-delete]").focus(); } }, "Delete…"));
    clear(node).append(...[
      h("h2", { id: "me-h", tabindex: "-1" }, "Memory entry ", h("span", { class: "mono" }, entry.id)),
      h("pre", { class: "panel", dataset: { testid: "entry-content" } }, entry.content),
      facts(entry),
      (entry.derived_from || []).length ? h("p", {}, "Derived from: ", entry.derived_from.map((d) => [idButton(d, show, "Open memory entry"), " "])) : null,
      h("h3", { id: "me-cascade-h" }, `A delete cascades to ${derived.length} derived entr${derived.length === 1 ? "y" : "ies"}`),
      derived.length ? h("ul", { dataset: { testid: "derived" } }, derived.map((d) => h("li", {}, idButton(d, show, "Open derived memory entry")))) : null,
      Object.keys(entry.metadata || {}).length ? h("details", {}, h("summary", {}, "Metadata"), json(entry.metadata)) : null,
      historySection(entry.id), actions, status].filter(Boolean)); // Element.append would write a null as text
    node.querySelector("h2").focus();
  }

  return { node, show, hide: () => { node.hidden = true; clear(node); address(null); } };
}
