// Render one model request laid out by part (see ../request-parts.js), with the cacheable prefix and
// every cachePoint visibly marked. Used by the trace view and the context preview.

import { h, number } from "../dom.js";
import { chars, layout } from "../request-parts.js";

const TITLES = {
  task_context: "System · Task context",
  skill_catalog: "System · Skill catalog",
  reattached_skill: "System · Re-attached skill (after the summary)",
  tool_notice: "System · Tool notice",
  system: "System block",
  summary: "History · Rolling summary (compressed history of this conversation)",
  summary_ack: "History · Summary acknowledgement",
  user_text: "The user's text",
  memory: "Volatile suffix · Memory block (auto-inject)",
  date_line: "Volatile suffix · Date and time",
};

function cachePoint() {
  return h("div", { class: "cache-point", role: "note", dataset: { part: "cache_point" } }, "cachePoint — the model caches everything above this line");
}

function textPart(kind, text, title) {
  return h("div", { class: `part ${kind}`, dataset: { part: kind } },
    h("p", { class: "part-title" }, title || TITLES[kind] || kind, h("span", { class: "muted" }, `${number(chars(text))} chars`)),
    h("pre", {}, text));
}

function part(p, role) {
  switch (p.kind) {
    case "cache_point":
      return cachePoint();
    case "tool_use":
      return h("div", { class: "part tool_use", dataset: { part: "tool_use" } },
        h("p", { class: "part-title" }, `Tool call · ${p.name}`, h("span", { class: "muted mono" }, p.id)),
        h("pre", {}, JSON.stringify(p.input ?? {}, null, 2)));
    case "tool_result":
      return h("div", { class: "part tool_result", dataset: { part: "tool_result" } },
        h("p", { class: "part-title" }, `Tool result · ${p.status}`, h("span", { class: "muted mono" }, p.id)),
        h("pre", {}, p.text));
    case "text":
      return textPart(`text ${role}`, p.text, role === "user" ? "User" : "Assistant");
    case "other":
      return h("div", { class: "part" }, h("pre", {}, JSON.stringify(p.value, null, 2)));
    default:
      return textPart(p.kind, p.text);
  }
}

function turn(t) {
  return h("div", { class: "turn", dataset: { role: t.role } },
    h("p", { class: "turn-role" }, t.merged ? `${t.role} — earlier blocks of the current turn (a sub-agent's inherited conversation)` : t.role),
    t.parts.map((p) => part(p, t.role)));
}

function toolsPart(tools) {
  return h("div", { class: "part tools", dataset: { part: "tools" } },
    h("p", { class: "part-title" }, "Tool configuration", h("span", { class: "muted" }, tools.names.join(", ") || "–")),
    h("details", {}, h("summary", {}, `${tools.names.length} tool specs (sorted, serialized deterministically)`),
      h("pre", {}, JSON.stringify(tools.specs, null, 2))));
}

/**
 * requestView(request, {sizes, usage, hasMemory}) → element. `usage` (from the `model_call` event) adds the
 * token counts with cache read / write.
 */
export function requestView(request, { sizes, usage, hasMemory, stopReason } = {}) {
  const view = layout(request, { sizes, hasMemory });
  const facts = [
    ["model", view.modelId],
    ["cache points", String(view.cachePoints)],
    view.prefixChars !== null ? ["stable prefix", `${number(view.prefixChars)} chars`] : null,
    usage ? ["input tokens", number(usage.input_tokens)] : null,
    usage ? ["output tokens", number(usage.output_tokens)] : null,
    usage ? ["cache read tokens", number(usage.cache_read_tokens)] : null,
    usage ? ["cache write tokens", number(usage.cache_write_tokens)] : null,
    stopReason ? ["stop reason", stopReason] : null,
  ].filter(Boolean);
  const prefix = [];
  if (view.tools) {
    prefix.push(toolsPart(view.tools));
    if (view.tools.cachePoint) prefix.push(cachePoint());
  }
  prefix.push(...view.system.map((p) => part(p, "system")));
  prefix.push(...view.history.map(turn));
  if (prefix.length === 0) prefix.push(h("p", { class: "muted" }, "Nothing before the current message."));
  const regions = [
    h("section", { class: "region prefix", "aria-label": "Cacheable prefix", dataset: { region: "prefix" } },
      h("p", { class: "region-title" }, "Cacheable prefix — tools, system blocks and history: byte-identical between requests of this chat"),
      prefix),
  ];
  if (view.current) {
    const c = view.current;
    regions.push(h("section", { class: "region volatile", "aria-label": "Current user message", dataset: { region: "current" } },
      h("p", { class: "region-title" }, "Current user message — the user's text, then the volatile suffix (never cached)"),
      c.userText ? textPart("user_text", c.userText) : h("p", { class: "muted" }, "(no text of the user's: only the suffix)"),
      c.memory ? textPart("memory", c.memory) : h("p", { class: "muted", dataset: { part: "no_memory" } }, "No memory block: nothing was injected."),
      c.dateLine ? textPart("date_line", c.dateLine) : null,
      c.after.map((p) => part(p, "user"))));
  }
  if (view.continuation.length) {
    regions.push(h("section", { class: "region", "aria-label": "This run's tool turns", dataset: { region: "continuation" } },
      h("p", { class: "region-title" }, "This run's tool turns after the current message"),
      view.continuation.map(turn)));
  }
  return h("div", { class: "request", dataset: { testid: "request" } },
    h("p", { class: "kv" }, facts.map(([k, v]) => h("span", {}, `${k}: `, h("b", {}, v)))),
    regions);
}

/**
 * summaryRequestView(request, {usage}) → element: the rolling summary's request (`"purpose": "summary"`), which
 * is no turn of the conversation: its instruction and the text of the messages it compresses, as sent.
 */
export function summaryRequestView(request, { usage } = {}) {
  const text = (blocks) => (blocks || []).map((b) => b.text ?? "").join("\n");
  const facts = [
    ["model", request.modelId || "–"],
    usage ? ["input tokens", number(usage.input_tokens)] : null,
    usage ? ["output tokens", number(usage.output_tokens)] : null,
  ].filter(Boolean);
  return h("div", { class: "request", dataset: { testid: "summary-request" } },
    h("p", { class: "kv" }, facts.map(([k, v]) => h("span", {}, `${k}: `, h("b", {}, v)))),
    textPart("summary_instruction", text(request.system), "System · Summary instruction"),
    (request.messages || []).map((m) => textPart("summary_input", text(m.content), "The messages to summarize, with the previous summary")));
}
