// Skills: list, create, edit, delete (SPEC §2, §4), with the server's errors inline.

import { ApiError, del, get, getAll, onlyIfUnchanged, put, seg } from "../api.js";
import { field, h, scrollable } from "../dom.js";
import { NEW, clearErrors, oldNewLink, showError, showWarnings, staleSave } from "../forms.js";
import { historySection } from "./history.js";

const skillHref = (name) => `#/skills/${encodeURIComponent(name)}`;

async function skillForm(name, saved = () => {}) {
  const isNew = name === NEW;
  const skill = isNew ? { description: "", when_to_use: "", content: "" } : await get(`/v1/skills/${seg(name)}`);
  let etag = skill.etag; // what this form replaces: the skill as read, then as last saved
  const form = h("form", { class: "stack", novalidate: true, dataset: { form: "skill" } },
    h("h2", {}, isNew ? "New skill" : `Edit ${name}`),
    isNew ? field({ label: "Name", name: "name", required: true, hint: "lowercase letters, digits and hyphens (≤ 64)", autocomplete: "off" }) : null,
    field({ label: "Description", name: "description", value: skill.description, hint: "≤ 1024 characters; shown in the skill catalog" }),
    field({ label: "When to use", name: "when_to_use", value: skill.when_to_use || "" }),
    field({ label: "Content", name: "content", type: "textarea", rows: 8, value: skill.content, hint: "the instructions activate_skill returns" }),
    h("div", { class: "actions" }, h("button", { type: "submit" }, isNew ? "Create the skill" : "Save"),
      isNew ? null : h("button", { type: "button", class: "danger", onclick: async () => {
        if (!window.confirm(`Delete skill ${name}?`)) return;
        try { await del(`/v1/skills/${seg(name)}`, { headers: { "If-Match": etag } }); window.location.hash = "#/skills"; } catch (error) { showError(form, staleSave(error, "skill", { action: "deleted" })); }
      } }, "Delete the skill")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const id = isNew ? String(data.get("name") || "").trim() : name;
    if (!id) return showError(form, new ApiError(400, { error: "invalid_input", message: "name: required", field: "name" }));
    const body = { description: data.get("description"), content: data.get("content") };
    if (String(data.get("when_to_use") || "").trim()) body.when_to_use = data.get("when_to_use");
    try {
      const stored = await put(`/v1/skills/${seg(id)}`, body, onlyIfUnchanged(etag));
      etag = stored.etag;
      if (isNew) window.location.hash = skillHref(id);
      else {
        showWarnings(form, stored.warnings);
        saved();
      }
    } catch (error) {
      showError(form, staleSave(error, "skill", { isNew, href: skillHref(id) }));
    }
  });
  return { form, etag: () => etag };
}

export async function skillsView(param) {
  const name = (await oldNewLink(param, "/v1/skills/new", `#/skills/${NEW}`)) ? NEW : param;
  if (name) {
    let history = null; // listed again after each save
    const { form, etag } = await skillForm(name, () => history && history.reload());
    const node = h("div", { dataset: { view: "skill" } }, h("h1", {}, name === NEW ? "New skill" : `Skill ${name}`), h("p", {}, h("a", { href: "#/skills" }, "← all skills")), form);
    if (name !== NEW) {
      history = await historySection(`/v1/skills/${seg(name)}`, "skill", etag);
      node.append(history.node);
    }
    return { node };
  }
  const { skills } = await getAll("/v1/skills", "skills");
  return { node: h("div", { dataset: { view: "skills" } },
    h("h1", {}, "Skills"),
    h("p", {}, h("a", { href: `#/skills/${NEW}`, class: "button" }, "New skill")),
    skills.length === 0 ? h("p", { class: "muted" }, "No skill yet.") : scrollable(h("table", {},
      h("thead", {}, h("tr", {}, ["name", "description", "when to use"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, skills.map((s) => h("tr", {},
        h("td", {}, h("a", { href: skillHref(s.name) }, s.name), s.global ? h("span", { class: "muted" }, " (global)") : null),
        h("td", {}, s.description), h("td", {}, s.when_to_use || "–"))))))) };
}
