// Runs: every run of the caller (GET /v1/runs, views/run-list.js), start a run, open one by id, and find
// runs through the caller's chats (GET /v1/chats): a chat's messages carry the ids of the runs that wrote them.
// `#/runs?agent=…&chat=…` opens the start form continuing that chat (a run started with its `chat_id`).

import { get, getAll, post, seg } from "../api.js";
import { userId } from "../auth.js";
import { clear, field, h, when } from "../dom.js";
import { showError, clearErrors } from "../forms.js";
import { runList } from "./run-list.js";

const STARTED = "mneme.started-runs";

/** The start form continuing chat `chatId` of agent `agentId`. */
export const continueHref = (agentId, chatId) => `#/runs?${new URLSearchParams({ agent: agentId, chat: chatId })}`;

/** The runs started in this tab by the signed-in user: the list is kept with its user's id, so whoever signs in
 * next in the same tab (after a sign-out or an expired session) never sees another user's inputs. */
function startedHere() {
  const kept = JSON.parse(sessionStorage.getItem(STARTED) || "null");
  return kept && !Array.isArray(kept) && kept.user === userId() ? kept.runs : [];
}

/** Signing out forgets the runs started in the tab (as it forgets the draft). */
export const forgetStarted = () => sessionStorage.removeItem(STARTED);

function remember(run) {
  const list = startedHere().filter((r) => r.run_id !== run.run_id);
  list.unshift({ run_id: run.run_id, agent_id: run.agent_id, input: run.input.slice(0, 120), at: new Date().toISOString() });
  sessionStorage.setItem(STARTED, JSON.stringify({ user: userId(), runs: list.slice(0, 20) }));
}

async function taskOptions(agentId) {
  if (!agentId) return [["", "(the agent's default)"]];
  const { tasks } = await getAll(`/v1/agents/${seg(agentId)}/tasks`, "tasks");
  return [["", "(the agent's default)"], ...tasks.map((t) => [t.task_id, `${t.task_id}${t.name ? ` — ${t.name}` : ""}`])];
}

/** Agent + task selects that keep the task list in step with the chosen agent. */
export async function agentTaskFields(agents, { agentField = "agent_id", taskField = "task_id", value } = {}) {
  const chosen = agents.some((a) => a.agent_id === value) ? value : agents[0] && agents[0].agent_id;
  const agentSelect = field({ label: "Agent", name: agentField, type: "select", options: agents.map((a) => [a.agent_id, `${a.label} (${a.agent_id})`]), value: chosen, required: true });
  const taskSelect = field({ label: "Task", name: taskField, type: "select", options: await taskOptions(chosen) });
  agentSelect.querySelector("select").addEventListener("change", async (event) => {
    const select = taskSelect.querySelector("select");
    clear(select).append(...(await taskOptions(event.target.value)).map(([v, t]) => h("option", { value: v }, t)));
  });
  return [agentSelect, taskSelect];
}

/** "Continues chat x" with the hidden chat_id, and a button that clears both (the run then starts a new chat). */
function chatNote(chatId) {
  if (!chatId) return null;
  const note = h("p", { class: "note", dataset: { testid: "continues" } }, "Continues chat ", h("code", {}, chatId), " ",
    h("input", { type: "hidden", name: "chat_id", value: chatId }),
    h("button", { type: "button", class: "secondary", onclick: () => note.remove() }, "Start a new chat instead"));
  return note;
}

function startForm(agents, { agent, chat } = {}) {
  return agentTaskFields(agents, { value: agent }).then(([agentSelect, taskSelect]) => {
    const form = h("form", { class: "stack", "aria-labelledby": "start-h", dataset: { form: "start-run" } });
    form.append( // a DOM append writes null as the text "null": the chat note only when a chat is continued
      h("h2", { id: "start-h" }, chat ? "Continue a chat" : "Start a run"),
      ...(chat ? [chatNote(chat)] : []),
      h("div", { class: "row" }, agentSelect, taskSelect,
        field({ label: "Tool approval", name: "tool_approval", type: "select", options: [["", "(the agent's default)"], "granted", "prompt", "denied"] })),
      field({ label: "Input", name: "input", type: "textarea", rows: 3, required: true, hint: "The offline model obeys /delegate <agent> :: <input>, /search <query>, /skill <name>, /write <ns> :: <text>." }),
      h("div", { class: "checks" }, h("label", {}, h("input", { type: "checkbox", name: "memory", checked: true }), "Long-term memory (auto-inject and auto-write)")),
      h("div", {}, h("button", { type: "submit" }, "Start the run")));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearErrors(form);
      const data = new FormData(form);
      const body = { agent_id: data.get("agent_id"), input: data.get("input") };
      if (data.get("task_id")) body.task_id = data.get("task_id");
      if (data.get("chat_id")) body.chat_id = data.get("chat_id");
      if (data.get("tool_approval")) body.tool_approval = data.get("tool_approval");
      if (!data.get("memory")) body.memory = { enabled: false };
      try {
        const run = await post("/v1/runs", body);
        remember({ run_id: run.run_id, agent_id: body.agent_id, input: body.input });
        window.location.hash = `#/runs/${encodeURIComponent(run.run_id)}`;
      } catch (error) {
        showError(form, error);
      }
    });
    return form;
  });
}

function openForm() {
  const form = h("form", { class: "row", "aria-labelledby": "open-h", dataset: { form: "open-run" } },
    field({ label: "Run id", name: "run_id", required: true, autocomplete: "off" }),
    h("div", {}, h("button", { type: "submit", class: "secondary" }, "Open the trace")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const id = new FormData(form).get("run_id").trim();
    if (id) window.location.hash = `#/runs/${encodeURIComponent(id)}`;
  });
  return [h("h2", { id: "open-h" }, "Open a run"), form];
}

function chatRow(chat) {
  const list = h("ul", { class: "list-plain" });
  const details = h("details", { dataset: { chat: chat.chat_id } },
    h("summary", {}, h("b", {}, chat.title || chat.chat_id), h("span", { class: "muted" }, ` · ${chat.agent_id || ""} · ${when(chat.updated_at)}`)),
    list, chat.agent_id ? h("a", { href: continueHref(chat.agent_id, chat.chat_id) }, "Continue this chat") : null);
  details.addEventListener("toggle", async () => {
    if (!details.open || list.childElementCount) return;
    try {
      const full = await get(`/v1/chats/${seg(chat.chat_id)}`);
      const runs = [];
      for (const m of full.messages) {
        if (m.run_id && m.role === "user" && !runs.some((r) => r.id === m.run_id)) runs.push({ id: m.run_id, text: m.text, at: m.at });
      }
      list.append(...(runs.length ? runs.map((r) => h("li", {}, h("a", { href: `#/runs/${encodeURIComponent(r.id)}` }, r.text.slice(0, 100) || r.id), h("span", { class: "muted" }, ` · ${when(r.at)}`)))
        : [h("li", { class: "muted" }, "No finished run in this chat yet.")]));
    } catch (error) {
      list.append(h("li", { class: "field-error" }, error.message));
    }
  });
  return h("li", {}, details);
}

export async function runsView(params = new URLSearchParams()) {
  const [{ agents }, { chats }] = await Promise.all([getAll("/v1/agents", "agents"), getAll("/v1/chats", "chats")]);
  const started = startedHere();
  const node = h("div", { dataset: { view: "runs" } }, h("h1", {}, "Runs"));
  const preset = { agent: params.get("agent"), chat: params.get("chat") };
  const listed = runList(agents);
  await listed.ready;
  if (!preset.chat) node.append(listed.section);
  if (agents.length) node.append(await startForm(agents, preset));
  else node.append(h("p", { class: "note" }, "No agent yet: ", h("a", { href: "#/agents/+new" }, "create one"), " to start a run."));
  if (preset.chat) node.append(listed.section); // the continued chat's form first
  node.append(...openForm());
  if (started.length) {
    node.append(h("h2", {}, "Started in this tab"), h("ul", { class: "list-plain", dataset: { testid: "started" } },
      started.map((r) => h("li", {}, h("a", { href: `#/runs/${encodeURIComponent(r.run_id)}` }, r.input || r.run_id), h("span", { class: "muted" }, ` · ${r.agent_id} · ${when(r.at)}`)))));
  }
  node.append(h("h2", {}, "Chats"), chats.length
    ? h("ul", { class: "list-plain" }, chats.map(chatRow))
    : h("p", { class: "muted" }, "No chat yet."));
  return { node };
}
