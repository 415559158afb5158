// The context preview (POST /v1/context/preview): the exact request an agent + task + input would send,
// laid out by part, with the memory hits it would inject and the warnings (e.g. ${current_time}).
// Nothing is called or written except the read audit.

import { getAll, post } from "../api.js";
import { clear, field, h, scrollable } from "../dom.js";
import { clearErrors, showError } from "../forms.js";
import { inSaidOrder } from "../hit-text.js";
import { requestView } from "./request-view.js";
import { agentTaskFields } from "./runs.js";

// a chat-line hit with the lines said around it (mneme.memory.conversation), muted, in the order they were said
function said(hit) {
  const line = (l) => h("div", { class: "muted", dataset: { testid: "hit-line", offset: String(l.offset) } }, l.content);
  const lines = hit.context || [];
  return inSaidOrder(h("div", {}, hit.content), lines, line);
}

function hitsTable(hits) {
  if (!hits.length) return h("p", { class: "muted" }, "No memory would be injected.");
  return scrollable(h("table", { dataset: { testid: "preview-hits" } },
    h("thead", {}, h("tr", {}, ["#", "namespace", "content", "similarity", "relevance"].map((c, i) => h("th", { scope: "col", class: i >= 3 ? "num" : null }, c)))),
    h("tbody", {}, hits.map((hit, i) => h("tr", {},
      h("td", {}, String(i + 1)), h("td", { class: "mono" }, hit.namespace), h("td", {}, ...said(hit)),
      ...scores(hit))))));
}

/** A hit's two score cells; a standing entry is shown whatever the question: no score, the reason. */
function scores(hit) {
  if (hit.standing) return [h("td", { class: "num", colspan: 2, dataset: { testid: "standing" } }, "standing: every run")];
  return [h("td", { class: "num" }, hit.similarity.toFixed(4)), h("td", { class: "num" }, hit.relevance.toFixed(4))];
}

export async function previewView() {
  const { agents } = await getAll("/v1/agents", "agents");
  const node = h("div", { dataset: { view: "preview" } }, h("h1", {}, "Context preview"));
  if (!agents.length) {
    node.append(h("p", { class: "note" }, "No agent yet: ", h("a", { href: "#/agents/+new" }, "create one"), " first."));
    return { node };
  }
  const result = h("div", { dataset: { testid: "preview-result" }, "aria-live": "polite" });
  const [agentSelect, taskSelect] = await agentTaskFields(agents);
  const form = h("form", { class: "stack", dataset: { form: "preview" } },
    h("div", { class: "row" }, agentSelect, taskSelect, field({ label: "Chat id (optional)", name: "chat_id", field: "chat_id", autocomplete: "off" })),
    field({ label: "Input", name: "input", type: "textarea", rows: 3, required: true }),
    h("div", {}, h("button", { type: "submit" }, "Preview the context")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const body = { agent_id: data.get("agent_id"), input: data.get("input") };
    if (data.get("task_id")) body.task_id = data.get("task_id");
    if (String(data.get("chat_id") || "").trim()) body.chat_id = String(data.get("chat_id")).trim();
    try {
      const preview = await post("/v1/context/preview", body);
      clear(result).append(
        h("h2", {}, "Warnings"),
        preview.warnings.length
          ? h("div", { class: "warn", dataset: { testid: "preview-warnings" } }, h("ul", {}, preview.warnings.map((w) => h("li", {}, w))))
          : h("p", { class: "muted" }, "None."),
        h("h2", {}, `Memory hits (${preview.memory_hits.length})`),
        hitsTable(preview.memory_hits),
        h("h2", {}, "The request"),
        requestView(preview.request, { hasMemory: preview.memory_hits.length > 0 }));
    } catch (error) {
      clear(result);
      showError(form, error);
    }
  });
  node.append(form, result);
  return { node };
}
