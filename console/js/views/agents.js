// Agents and their tasks: list, create, edit (PUT replaces the resource, so fields the form does not show
// — external tools, inference settings — are kept from the stored agent), delete. Errors and warnings of
// the server appear inline (../forms.js).

import { del, get, getAll, onlyIfUnchanged, put, query, seg, ApiError } from "../api.js";
import { field, h, scrollable } from "../dom.js";
import { NEW, clearErrors, oldNewLink, showError, showWarnings, staleSave } from "../forms.js";
import { delegateText, delegatesFieldset, readDelegates } from "./agent-delegates.js";
import { historySection, restoreRevision } from "./history.js";
import { policyFieldset, readPolicy } from "./policy-form.js";

const TOOLS = ["memory-search", "memory-write", "memory-update", "memory-delete", "delegate-to-agent"];
const agentHref = (id) => `#/agents/${encodeURIComponent(id)}`;

/** "Agent x deleted. Undo" after a delete: the undo saves the agent's last revision (the agent as it was deleted)
 * again, only if no agent of that id exists by then, then each task its delete names (`tasks`) from that task's last
 * revision; the agent's page then says how many came back and which could not. */
function undoDelete() {
  const agentId = sessionStorage.getItem("mneme.deleted");
  if (!agentId) return null;
  sessionStorage.removeItem("mneme.deleted");
  const note = h("div", { class: "note", role: "status", dataset: { testid: "undo" } }, `Agent ${agentId} deleted. `);
  const last = async (path) => (await get(`${path}/revisions${query({ limit: 1 })}`)).revisions[0];
  note.append(h("button", { type: "button", onclick: async () => {
    const path = `/v1/agents/${seg(agentId)}`;
    try {
      const deleted = await last(path);
      await restoreRevision(path, "agent", deleted);
      const tasks = deleted.tasks || [];
      const results = await Promise.allSettled(tasks.map(async (t) => restoreRevision(`${path}/tasks/${seg(t)}`, "task", await last(`${path}/tasks/${seg(t)}`))));
      const failed = tasks.flatMap((t, i) => results[i].status === "rejected"
        ? [`Task ${t} not restored: ${results[i].reason.status === 412 ? "a task with this id exists again" : results[i].reason.message}`] : []);
      const n = tasks.length - failed.length, of = failed.length ? `${n} of ` : "";
      sessionStorage.setItem("mneme.flash", JSON.stringify([tasks.length ? `Restored, with ${of}its ${tasks.length} task${tasks.length === 1 ? "" : "s"}.` : "Restored.", failed]));
      window.location.hash = agentHref(agentId);
    } catch (error) {
      note.replaceChildren(`Not restored: ${error.status === 412 ? "an agent with this id exists again" : error.message}`);
    }
  } }, "Undo"));
  return note;
}

async function listView() {
  const { agents } = await getAll("/v1/agents", "agents");
  return h("div", { dataset: { view: "agents" } },
    h("h1", {}, "Agents"),
    undoDelete(),
    h("p", {}, h("a", { href: `#/agents/${NEW}`, class: "button" }, "New agent")),
    agents.length === 0 ? h("p", { class: "muted" }, "No agent yet.") : scrollable(h("table", {},
      h("thead", {}, h("tr", {}, ["agent", "label", "model", "tools", "delegates", "approval"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, agents.map((a) => h("tr", { dataset: { agent: a.agent_id } },
        h("td", {}, h("a", { href: agentHref(a.agent_id) }, a.agent_id), a.global ? h("span", { class: "muted" }, " (global)") : null),
        h("td", {}, a.label), h("td", { class: "mono" }, `${a.model.provider} · ${a.model.model_id}`),
        h("td", {}, a.tools.join(", ") || "–"), h("td", { dataset: { testid: "delegates" } }, a.delegates.map(delegateText).join(", ") || "–"), h("td", {}, a.tool_approval_default)))))));
}

/** Checkboxes of `values`; a chosen value that is not among them (a skill deleted since) is listed too, ticked and
 * marked "(missing)", so a save keeps it unless the person unticks it. */
function checks(name, values, chosen, apiField) {
  const missing = chosen.filter((v) => !values.includes(v));
  const box = (v, gone) => h("label", { dataset: gone ? { missing: v } : {} },
    h("input", { type: "checkbox", name, value: v, checked: chosen.includes(v) }), v, gone ? h("span", { class: "missing" }, " (missing)") : null);
  return h("div", { class: "checks", dataset: { field: apiField } },
    values.length || missing.length ? [...values.map((v) => box(v, false)), ...missing.map((v) => box(v, true))] : h("span", { class: "muted" }, "none available"));
}

/** The default task's options: none, the agent's tasks, and a stored id with no such task (kept, marked). */
function taskChoices(tasks, stored) {
  const ids = tasks.map((t) => t.task_id);
  return [["", "(none)"], ...ids, ...(stored && !ids.includes(stored) ? [[stored, `${stored} (missing)`]] : [])];
}

async function agentForm(agentId, saved = () => {}) {
  const isNew = !agentId;
  const [agent, { agents }, { skills }, tasks] = await Promise.all([
    isNew ? Promise.resolve(null) : get(`/v1/agents/${seg(agentId)}`),
    getAll("/v1/agents", "agents"),
    getAll("/v1/skills", "skills"),
    isNew ? Promise.resolve({ tasks: [] }) : getAll(`/v1/agents/${seg(agentId)}/tasks`, "tasks"),
  ]);
  const a = agent || { label: "", description: "", model: { provider: "offline", model_id: "offline" }, tools: [], skills: [], delegates: [], memory_policy: {}, tool_approval_default: "granted", default_task_id: null };
  const others = agents.filter((o) => o.agent_id !== agentId).map((o) => o.agent_id);
  let etag = agent && agent.etag; // what this form replaces: the agent as read, then as last saved
  const form = h("form", { class: "stack", novalidate: true, dataset: { form: "agent" } },
    h("h2", {}, isNew ? "New agent" : `Edit ${agentId}`),
    isNew ? field({ label: "Agent id", name: "agent_id", field: "agent_id", required: true, hint: "lowercase letters, digits and hyphens", autocomplete: "off" }) : null,
    h("div", { class: "row" },
      field({ label: "Label", name: "label", value: a.label, required: true, hint: "unique among your agents; delegation may use it" }),
      field({ label: "Tool approval default", name: "tool_approval_default", type: "select", options: ["granted", "prompt", "denied"], value: a.tool_approval_default }),
      field({ label: "Default task", name: "default_task_id", type: "select", options: taskChoices(tasks.tasks, a.default_task_id), value: a.default_task_id || "" })),
    field({ label: "Description", name: "description", value: a.description }),
    h("div", { class: "row" },
      field({ label: "Model provider", name: "provider", field: "model.provider", type: "select", options: ["offline", "bedrock", "openai-compatible"], value: a.model.provider }),
      field({ label: "Model id", name: "model_id", field: "model.model_id", value: a.model.model_id, hint: "e.g. anthropic.claude-… or amazon.nova-lite-v1:0 (Bedrock)" })),
    h("fieldset", {}, h("legend", {}, "Tools"), checks("tools", TOOLS, a.tools, "tools")),
    h("fieldset", {}, h("legend", {}, "Skills"), checks("skills", skills.map((s) => s.name), a.skills, "skills")),
    delegatesFieldset(others, a.delegates),
    policyFieldset(a.memory_policy, "Memory policy (agent)"),
    h("div", { class: "actions" }, h("button", { type: "submit" }, isNew ? "Create the agent" : "Save"),
      isNew ? null : h("button", { type: "button", class: "danger", onclick: () => remove(form, agentId, etag, tasks.tasks.length) }, "Delete the agent")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const id = isNew ? String(data.get("agent_id") || "").trim() : agentId;
    if (!id) return showError(form, new ApiError(400, { error: "invalid_input", message: "agent id: required", field: "agent_id" }));
    const body = {
      ...(agent || {}),
      label: data.get("label"),
      description: data.get("description"),
      model: { ...a.model, provider: data.get("provider"), model_id: data.get("model_id") },
      tools: data.getAll("tools"),
      skills: data.getAll("skills"),
      delegates: readDelegates(data, a.delegates),
      tool_approval_default: data.get("tool_approval_default"),
      default_task_id: data.get("default_task_id") || null,
      memory_policy: readPolicy(form, a.memory_policy),
    };
    delete body.warnings;
    try {
      const stored = await put(`/v1/agents/${seg(id)}`, body, onlyIfUnchanged(etag));
      etag = stored.etag;
      if (isNew) {
        sessionStorage.setItem("mneme.flash", JSON.stringify(["Created.", stored.warnings || []]));
        window.location.hash = agentHref(id);
        return;
      }
      showWarnings(form, stored.warnings);
      saved();
    } catch (error) {
      showError(form, staleSave(error, "agent", { isNew, href: agentHref(id) }));
    }
  });
  const flash = sessionStorage.getItem("mneme.flash");
  if (flash) {
    sessionStorage.removeItem("mneme.flash");
    const [text, warnings] = JSON.parse(flash);
    showWarnings(form, warnings, text);
  }
  return { form, tasks: tasks.tasks, etag: () => etag };
}

async function remove(form, agentId, etag, tasks) {
  const its = tasks ? ` Its ${tasks} task${tasks === 1 ? " is" : "s are"} deleted with it (Undo on the agents list brings ${tasks === 1 ? "it" : "them"} back).` : "";
  if (!window.confirm(`Delete agent ${agentId}?${its}`)) return;
  try {
    await del(`/v1/agents/${seg(agentId)}`, etag ? { headers: { "If-Match": etag } } : undefined);
    sessionStorage.setItem("mneme.deleted", agentId);
    window.location.hash = "#/agents";
  } catch (error) {
    showError(form, staleSave(error, "agent", { action: "deleted" }));
  }
}

async function taskForm(agentId, taskId, saved = () => {}) {
  const isNew = !taskId;
  const task = isNew ? { name: "", context_prompt: "", memory_policy: {}, warnings: [] } : await get(`/v1/agents/${seg(agentId)}/tasks/${seg(taskId)}`);
  const form = h("form", { class: "stack", novalidate: true, dataset: { form: "task" } },
    h("h2", {}, isNew ? `New task of ${agentId}` : `Task ${taskId} of ${agentId}`),
    isNew ? field({ label: "Task id", name: "task_id", required: true, autocomplete: "off" }) : null,
    field({ label: "Name", name: "name", value: task.name }),
    field({ label: "Task context", name: "context_prompt", type: "textarea", rows: 6, value: task.context_prompt,
      hint: "Variables: ${user_id} ${user_name} ${user_email} ${chat_id} ${project_id} ${current_date} ${current_time} (the last two defeat prompt caching)" }),
    policyFieldset(task.memory_policy, "Memory policy (overrides the agent's, field by field)"),
    h("div", { class: "actions" }, h("button", { type: "submit" }, isNew ? "Create the task" : "Save the task"),
      isNew ? null : h("button", { type: "button", class: "danger", onclick: async () => {
        if (!window.confirm(`Delete task ${taskId}?`)) return;
        try { await del(`/v1/agents/${seg(agentId)}/tasks/${seg(taskId)}`, { headers: { "If-Match": etag } }); window.location.hash = agentHref(agentId); } catch (error) { showError(form, staleSave(error, "task", { action: "deleted" })); }
      } }, "Delete the task")));
  if (task.warnings && task.warnings.length) showWarnings(form, task.warnings, "Stored.");
  let etag = task.etag;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const id = isNew ? String(data.get("task_id") || "").trim() : taskId;
    if (!id) return showError(form, new ApiError(400, { error: "invalid_input", message: "task id: required", field: "task_id" }));
    const body = { name: data.get("name"), context_prompt: data.get("context_prompt"), memory_policy: readPolicy(form, task.memory_policy) };
    try {
      const stored = await put(`/v1/agents/${seg(agentId)}/tasks/${seg(id)}`, body, onlyIfUnchanged(etag));
      etag = stored.etag;
      if (isNew) window.location.hash = `${agentHref(agentId)}/tasks/${encodeURIComponent(id)}`;
      else {
        showWarnings(form, stored.warnings);
        saved();
      }
    } catch (error) {
      showError(form, staleSave(error, "task", { isNew, href: `${agentHref(agentId)}/tasks/${encodeURIComponent(id)}` }));
    }
  });
  return { form, etag: () => etag };
}

export async function agentsView(parts) {
  if (parts.length === 0) return { node: await listView() };
  const isNew = parts[0] === NEW || (parts.length === 1 && await oldNewLink(parts[0], "/v1/agents/new", `#/agents/${NEW}`));
  const agentId = isNew ? null : parts[0];
  if (agentId && parts[1] === "tasks" && parts[2]) {
    const tasks = `/v1/agents/${seg(agentId)}/tasks`;
    const newTask = parts[2] === NEW || await oldNewLink(parts[2], `${tasks}/new`, `${agentHref(agentId)}/tasks/${NEW}`);
    const taskId = newTask ? null : parts[2];
    let history = null; // listed again after each save
    const { form, etag } = await taskForm(agentId, taskId, () => history && history.reload());
    const node = h("div", { dataset: { view: "task" } }, h("h1", {}, `Agent ${agentId}`), h("p", {}, h("a", { href: agentHref(agentId) }, `← back to ${agentId}`)), form);
    if (taskId) {
      history = await historySection(`/v1/agents/${seg(agentId)}/tasks/${seg(taskId)}`, "task", etag);
      node.append(history.node);
    }
    return { node };
  }
  let history = null; // listed again after each save
  const { form, tasks, etag } = await agentForm(agentId, () => history && history.reload());
  const node = h("div", { dataset: { view: "agent" } }, h("h1", {}, agentId ? `Agent ${agentId}` : "New agent"), h("p", {}, h("a", { href: "#/agents" }, "← all agents")), form);
  if (agentId) {
    node.append(h("h2", {}, "Tasks"), h("ul", { class: "list-plain", dataset: { testid: "tasks" } },
      tasks.map((t) => h("li", {}, h("a", { href: `${agentHref(agentId)}/tasks/${encodeURIComponent(t.task_id)}` }, t.task_id), t.name ? ` — ${t.name}` : "")),
      h("li", {}, h("a", { href: `${agentHref(agentId)}/tasks/${NEW}` }, "New task"))));
    history = await historySection(`/v1/agents/${seg(agentId)}`, "agent", etag);
    node.append(history.node);
  }
  return { node };
}
