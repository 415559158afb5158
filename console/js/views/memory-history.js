// An entry's history (issue 35.3): `GET /v1/memory/documents/{id}/revisions`, oldest first — each revision's
// time, change kind, who made it (a user, an agent run, extraction, consolidation, the system) and the entry's
// content right after that change. Only the entry's owner reads it; another user's id is the API's 404,
// shown as "not found" (no history is listed; a status, not a second alert beside the entry's own).

import { get, seg } from "../api.js";
import { clear, h, when } from "../dom.js";

function made(revision) {
  return revision.actor ? `${revision.by} ${revision.actor}` : revision.by;
}

function list(revisions) {
  if (!revisions.length) return h("p", { class: "muted", dataset: { testid: "history-empty" } }, "No revisions recorded.");
  return h("ol", { class: "history", dataset: { testid: "history" } }, revisions.map((revision) =>
    h("li", { dataset: { seq: String(revision.seq), change: revision.change } },
      h("p", {}, h("strong", {}, revision.change), " · ", when(revision.at), " · by ", h("span", { class: "mono" }, made(revision))),
      h("pre", { class: "panel", dataset: { testid: "revision-content" } }, revision.document?.content ?? ""))));
}

/** A "History" section that fills itself in (it is returned at once; the revisions load after). */
export function historySection(id) {
  const body = h("div", {}, h("p", { class: "muted", role: "status" }, "Loading history…"));
  const node = h("section", { "aria-labelledby": "me-history-h", dataset: { section: "memory-history" } },
    h("h3", { id: "me-history-h" }, "History"), body);
  get(`/v1/memory/documents/${seg(id)}/revisions`).then(
    (answer) => clear(body).append(list(answer.revisions || [])),
    (error) => clear(body).append(h("p", { class: "alert", role: "status", dataset: { testid: "history-error" } },
      error.status === 404 ? `Not found: no entry ${id} of yours has a history.` : `${error.status || ""} ${error.message}`)));
  return node;
}
