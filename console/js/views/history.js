// The history of an agent, task or skill (GET …/revisions): each save and delete, newest first, with who made it (an
// admin reading a global resource's sees which admin; "–" when not known or not shown) and the resource as it was. "Restore" saves that version again — with If-Match, so a change made since the page opened is not undone.

import { get, onlyIfUnchanged, put, query } from "../api.js";
import { clear, h, shortVersion, scrollable } from "../dom.js";
import { showError, staleSave } from "../forms.js";

const when = (at) => new Date(at).toLocaleString();

/** What a history table shows of each kind, and the fields a restore does not send (the API sets them). */
const KINDS = {
  agent: { columns: ["label", "model"], cells: (a) => [a.label, `${a.model.provider} · ${a.model.model_id}`], derived: ["agent_id", "owner", "global"] },
  task: { columns: ["name", "task context"], cells: (t) => [t.name || "–", (t.context_prompt || "").slice(0, 80)], derived: ["task_id", "agent_id", "owner"] },
  skill: { columns: ["description"], cells: (s) => [s.description], derived: ["name", "owner", "global"] },
};

/** The history section of the resource at `path` (e.g. `/v1/skills/tone`): `{ node, reload }` — `reload()` after a
 * save lists the new revision; `currentTag()` is the ETag of the resource as the page last read or saved it. */
export async function historySection(path, kind, currentTag) {
  const { columns, cells } = KINDS[kind];
  const body = h("div");
  const section = h("section", { dataset: { testid: "history" } }, h("h2", {}, "History"), body);
  async function reload() {
    const { revisions } = await get(`${path}/revisions${query({ limit: 20 })}`);
    clear(body).append(!revisions.length ? h("p", { class: "muted" }, "No change recorded yet.") : scrollable(h("table", {},
      h("thead", {}, h("tr", {}, ["when", "change", "by", "version", ...columns, ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, revisions.map((r, i) => h("tr", { dataset: { revision: r.etag } },
        h("td", {}, when(r.at)), h("td", {}, r.change), h("td", { class: "mono" }, r.by ?? "–"), h("td", { class: "mono" }, shortVersion(r.etag)), ...cells(r[kind]).map((c) => h("td", {}, c)),
        h("td", {}, i === 0 && r.change === "saved" ? h("span", { class: "muted" }, "current")
          : h("button", { type: "button", onclick: () => restore(section, path, kind, r, currentTag()) }, "Restore this version"))))))));
  }
  await reload();
  return {
    node: section,
    reload: () => reload().catch((error) => clear(body).append(h("p", { class: "field-error" }, `The history could not be reloaded: ${error.message}`))),
  };
}

/** Save `revision` of the resource at `path` again: over the version `etag` names, or — without one — only if the
 * resource does not exist (a deleted one brought back). */
export function restoreRevision(path, kind, revision, etag) {
  const fields = Object.fromEntries(Object.entries(revision[kind]).filter(([key]) => !KINDS[kind].derived.includes(key)));
  return put(path, fields, onlyIfUnchanged(etag));
}

async function restore(section, path, kind, revision, etag) {
  if (!window.confirm(`Restore this ${kind} as it was on ${when(revision.at)}?`)) return;
  try {
    await restoreRevision(path, kind, revision, etag);
    window.location.reload();
  } catch (error) {
    showError(section, staleSave(error, kind, { action: "restored" }));
  }
}
