// The text of the memory hits a trace lists: its events keep only ids, so each text is read with
// GET /v1/memory/documents/{id} — the caller's own (or global) entries only, each read audited. An entry the
// caller may not read, or one deleted since, shows why instead of its text.

import { get, seg } from "./api.js";
import { clear, h } from "./dom.js";

const PREVIEW = 300;

function why(error) {
  if (error.status === 404) return "no longer readable (deleted, expired or not yours)";
  if (error.status === 403) return "not readable by you";
  return `not loaded: ${error.message}`;
}

/** Fill every ``[data-hit-text]`` cell under ``root`` with its entry's text: one read per distinct id, all sent at
 * once; ``reads`` (id → the read) lets a view that re-renders read each entry once, not at every render. */
export async function fillHitTexts(root, reads = new Map()) {
  const cells = [...root.querySelectorAll("[data-hit-text]")];
  for (const id of new Set(cells.map((cell) => cell.dataset.hitText))) {
    if (!reads.has(id)) reads.set(id, get(`/v1/memory/documents/${seg(id)}`).then((d) => ({ text: d.content }), (e) => ({ error: why(e) })));
  }
  for (const cell of cells) {
    const found = await reads.get(cell.dataset.hitText);
    clear(cell).append(found.error
      ? h("span", { class: "muted" }, found.error)
      : h("span", { title: found.text }, found.text.length > PREVIEW ? `${found.text.slice(0, PREVIEW)}…` : found.text));
  }
}

/** A chat-line hit's node between the nodes of the lines said around it (``offset`` < 0 before it, > 0 after
 * it), in the order they were said: the context preview and the trace show a hit as the run's model reads it. */
export function inSaidOrder(hit, lines, line) {
  return [...lines.filter((l) => l.offset < 0).map(line), hit, ...lines.filter((l) => l.offset > 0).map(line)];
}
