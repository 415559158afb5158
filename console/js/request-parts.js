// Lay a recorded (or previewed) Bedrock Converse request out by the parts of SPEC §3: tool configuration,
// the system blocks (task context / skill catalog / re-attached skills / tool notice), the history (with
// the rolling summary marked), the current user message split into the user's text and its volatile
// suffix (memory block, date line), and this run's tool turns after it. Every cachePoint keeps its place.
// Pure: no DOM. `sizes` (the `blocks` of the request's `context_built` event, characters per part) makes
// the system blocks and the memory block exact; without it the fixed order and the literal headers decide.

export const SKILL_CATALOG_HEADER = "SKILLS AVAILABLE — call activate_skill(name)";
export const SUMMARY_PREFIX = "[Context Summary — compressed history of this conversation]";
export const MEMORY_HEADER = "RELEVANT CONTEXT FROM LONG-TERM MEMORY:";
export const DATE_LINE_PREFIX = "[Context — current date/time:";
const DATE_LINE_AT_END = /\[Context — current date\/time: [^\]\n]*\]$/;
const SKILL_ENVELOPE = /^\s*<skill_content name="/;
const SEPARATOR = "\n\n";

/** Characters as Python counts them (code points), so sizes from the server compare exactly. */
export const chars = (text) => [...(text || "")].length;

const isCachePoint = (block) => Boolean(block && block.cachePoint);

/** Kinds of the system text blocks, in order. */
export function classifySystem(texts, sizes) {
  const kinds = texts.map(() => "system");
  let first = 0;
  let last = texts.length - 1;
  if (sizes) {
    if (sizes.task_context > 0 && chars(texts[first]) === sizes.task_context) kinds[first++] = "task_context";
    if (sizes.skill_catalog > 0 && chars(texts[first]) === sizes.skill_catalog) kinds[first++] = "skill_catalog";
    if (sizes.tool_notice > 0 && last >= first && chars(texts[last]) === sizes.tool_notice) kinds[last--] = "tool_notice";
    for (let i = first; i <= last; i += 1) kinds[i] = sizes.reattached_skills > 0 ? "reattached_skill" : "system";
    return kinds;
  }
  texts.forEach((text, i) => {
    if (text.startsWith(SKILL_CATALOG_HEADER)) kinds[i] = "skill_catalog";
    else if (SKILL_ENVELOPE.test(text)) kinds[i] = "reattached_skill";
  });
  const catalogAt = kinds.indexOf("skill_catalog");
  const firstSkill = kinds.indexOf("reattached_skill");
  const beforeAll = Math.min(...[catalogAt, firstSkill, texts.length].filter((i) => i >= 0));
  if (beforeAll > 0 && kinds[0] === "system") kinds[0] = "task_context";
  // the tool notice is the last block, after everything else, when tools are offered
  if (texts.length > 0 && kinds[last] === "system" && last > 0) kinds[last] = "tool_notice";
  else if (texts.length === 1 && kinds[0] === "task_context" && texts[0].startsWith("When you call a tool")) kinds[0] = "tool_notice";
  return kinds;
}

/** Split the current user message's text into the user's own text, the memory block and the date line. */
export function splitCurrent(text, { memorySize, hasMemory } = {}) {
  const match = DATE_LINE_AT_END.exec(text);
  if (!match) return { userText: text, memory: "", dateLine: "" };
  const dateLine = match[0];
  let before = text.slice(0, match.index);
  if (before.endsWith(SEPARATOR)) before = before.slice(0, -SEPARATOR.length);
  let memory = "";
  if (memorySize > 0) {
    const points = [...before];
    const candidate = points.slice(points.length - memorySize).join("");
    if (candidate.startsWith(MEMORY_HEADER)) {
      memory = candidate;
      before = points.slice(0, points.length - memorySize).join("");
    }
  } else if (hasMemory !== false && memorySize === undefined) {
    const at = before.lastIndexOf(MEMORY_HEADER);
    if (at === 0 || (at > 0 && before.slice(at - SEPARATOR.length, at) === SEPARATOR)) {
      memory = before.slice(at);
      before = before.slice(0, at);
    }
  }
  if (before.endsWith(SEPARATOR)) before = before.slice(0, -SEPARATOR.length);
  return { userText: before, memory, dateLine };
}

/** Where the current user text block is: the last user text block that ends with the date line. */
export function findCurrent(messages) {
  for (let m = messages.length - 1; m >= 0; m -= 1) {
    if (messages[m].role !== "user") continue;
    const content = messages[m].content || [];
    for (let b = content.length - 1; b >= 0; b -= 1) {
      if (typeof content[b].text === "string" && DATE_LINE_AT_END.test(content[b].text)) return { turn: m, block: b };
    }
  }
  return null;
}

function blockPart(block) {
  if (isCachePoint(block)) return { kind: "cache_point" };
  if (block.toolUse) return { kind: "tool_use", id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input };
  if (block.toolResult) {
    const content = (block.toolResult.content || []).map((c) => (typeof c.text === "string" ? c.text : JSON.stringify(c.json ?? c))).join("\n");
    return { kind: "tool_result", id: block.toolResult.toolUseId, status: block.toolResult.status || "success", text: content };
  }
  if (typeof block.text === "string") return { kind: "text", text: block.text };
  return { kind: "other", value: block };
}

/**
 * The layout of one request:
 * { modelId, tools: {names, cachePoint} | null, system: [part], history: [turn], current: {turn parts} | null,
 *   continuation: [turn], cachePoints, prefixChars }
 * A turn is {role, parts}; a part is {kind, text?, ...}; cache points are parts of kind "cache_point".
 */
export function layout(request, { sizes, hasMemory } = {}) {
  const messages = request.messages || [];
  const specs = ((request.toolConfig || {}).tools || []);
  const tools = specs.length
    ? { names: specs.filter((s) => s.toolSpec).map((s) => s.toolSpec.name), cachePoint: specs.some(isCachePoint), specs: specs.filter((s) => s.toolSpec) }
    : null;
  const systemBlocks = request.system || [];
  const texts = systemBlocks.filter((b) => typeof b.text === "string").map((b) => b.text);
  const kinds = classifySystem(texts, sizes);
  let t = 0;
  const system = systemBlocks.map((block) => (isCachePoint(block) ? { kind: "cache_point" } : { kind: kinds[t++], text: block.text }));

  const where = findCurrent(messages);
  const history = [];
  const continuation = [];
  let current = null;
  let summaryTurn = -1;
  messages.forEach((message, m) => {
    const parts = (message.content || []).map(blockPart);
    if (where && m === where.turn) {
      const before = parts.slice(0, where.block);
      const after = parts.slice(where.block + 1);
      if (before.length) history.push({ role: message.role, parts: before, merged: true });
      const split = splitCurrent(message.content[where.block].text, { memorySize: sizes ? sizes.memory : undefined, hasMemory });
      current = { role: "user", ...split, after };
      return;
    }
    if (message.role === "user" && parts[0] && parts[0].kind === "text" && parts[0].text.startsWith(SUMMARY_PREFIX)) {
      parts[0] = { ...parts[0], kind: "summary" };
      summaryTurn = m;
    } else if (message.role === "assistant" && summaryTurn === m - 1 && summaryTurn >= 0 && parts[0] && parts[0].kind === "text") {
      parts[0] = { ...parts[0], kind: "summary_ack" };
    }
    (where && m > where.turn ? continuation : history).push({ role: message.role, parts });
  });
  const cachePoints = [...system, ...history.flatMap((turn) => turn.parts), ...(current ? current.after : []), ...continuation.flatMap((turn) => turn.parts)]
    .filter((part) => part.kind === "cache_point").length + (tools && tools.cachePoint ? 1 : 0);
  const prefixChars = sizes
    ? ["tools", "task_context", "skill_catalog", "reattached_skills", "tool_notice", "history"].reduce((sum, key) => sum + (sizes[key] || 0), 0)
    : null;
  return { modelId: request.modelId, tools, system, history, current, continuation, cachePoints, prefixChars };
}
