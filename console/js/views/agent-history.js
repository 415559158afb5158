// An agent's history (GET /v1/agents/{id}/revisions): each save and delete, newest first, with the agent as it
// was. "Restore" saves that version again — with If-Match, so a change made since the page opened is not undone.

import { get, onlyIfUnchanged, put, query, seg } from "../api.js";
import { h } from "../dom.js";
import { showError, staleSave } from "../forms.js";

const when = (at) => new Date(at).toLocaleString();

/** The history section; `currentTag()` is the ETag of the agent as the page last read or saved it. */
export async function historySection(agentId, currentTag) {
  const { revisions } = await get(`/v1/agents/${seg(agentId)}/revisions${query({ limit: 20 })}`);
  const section = h("section", { dataset: { testid: "history" } }, h("h2", {}, "History"));
  if (!revisions.length) {
    section.append(h("p", { class: "muted" }, "No change recorded yet."));
    return section;
  }
  section.append(h("table", {},
    h("thead", {}, h("tr", {}, ["when", "change", "label", "model", ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, revisions.map((r, i) => h("tr", { dataset: { revision: r.etag } },
      h("td", {}, when(r.at)), h("td", {}, r.change), h("td", {}, r.agent.label),
      h("td", { class: "mono" }, `${r.agent.model.provider} · ${r.agent.model.model_id}`),
      h("td", {}, i === 0 && r.change === "saved" ? h("span", { class: "muted" }, "current")
        : h("button", { type: "button", onclick: () => restore(section, agentId, r, currentTag()) }, "Restore this version")))))));
  return section;
}

async function restore(section, agentId, revision, etag) {
  if (!window.confirm(`Restore ${agentId} as it was on ${when(revision.at)}?`)) return;
  const { agent_id: _id, owner: _owner, global: _global, ...fields } = revision.agent;
  try {
    await put(`/v1/agents/${seg(agentId)}`, fields, onlyIfUnchanged(etag));
    window.location.reload();
  } catch (error) {
    section.querySelectorAll("[role=alert]").forEach((el) => el.remove());
    showError(section, staleSave(error, "agent", false, "restored"));
  }
}
