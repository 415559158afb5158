// Memory: browse the caller's namespaces and their entries (./memory-browse.js), an entry's detail with the
// cascade a delete would take and the delete itself (./memory-entry.js), search, write and delete by id
// (./memory-forms.js). Deletes are soft (SPEC §5) and cascade to the entries derived from the deleted one.

import { h } from "../dom.js";
import { browseSection } from "./memory-browse.js";
import { entryPanel } from "./memory-entry.js";
import { deleteForm, searchForm, writeForm } from "./memory-forms.js";

/** `#/memory`, or `#/memory/<id>`: the view with that entry open (an opened entry's own address). */
export async function memoryView(entryId = null) {
  let browse = null;
  const changed = () => browse.refresh();
  const entry = entryPanel({ onDeleted: changed });
  browse = browseSection({ open: entry.show });
  await browse.loadCounts();
  if (entryId) entry.show(entryId);
  return { node: h("div", { dataset: { view: "memory" } },
    h("h1", {}, "Memory"),
    h("p", { class: "muted" }, "Your long-term memory: the agent and user namespaces of your id, and vector.global.*. Every search and change is audited."),
    browse.node, entry.node,
    searchForm({ open: entry.show, changed }), writeForm({ changed }), deleteForm({ changed })) };
}
