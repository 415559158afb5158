// The agent form's "May delegate to" (issue 35.4): a `delegates` item is an agent id or label (a fresh child,
// context `full`) or `{agent, context}` — `fork` shares the parent's prompt cache (docs/memory.md §14),
// `isolated` and `tail:N` narrow it. Each listed agent has a context select; a `full` one is saved as a bare
// string, as before. A delegate typed in "More delegates" keeps the context its stored entry had.

import { field, h } from "../dom.js";
import { listOf } from "../forms.js";

const MODES = ["full", "fork", "isolated"];
export const delegateName = (d) => (typeof d === "string" ? d : d.agent);
export const contextOf = (d) => (typeof d === "string" ? "full" : d.context || "full");
/** How a delegates item reads in a list: `writer`, or `writer (fork)`. */
export const delegateText = (d) => (contextOf(d) === "full" ? delegateName(d) : `${delegateName(d)} (${contextOf(d)})`);

const entry = (agent, context) => (context === "full" ? agent : { agent, context });

/** The fieldset: one checkbox and one context select per other agent, then a free list of more delegates. */
export function delegatesFieldset(others, delegates) {
  const byName = new Map(delegates.map((d) => [delegateName(d), d]));
  return h("fieldset", {}, h("legend", {}, "May delegate to"),
    h("div", { class: "checks", dataset: { field: "delegates" } },
      others.length ? others.map((v) => {
        const mode = byName.has(v) ? contextOf(byName.get(v)) : "full";
        const modes = MODES.includes(mode) ? MODES : [...MODES, mode];
        return h("span", { class: "delegate", dataset: { delegate: v } },
          h("label", {}, h("input", { type: "checkbox", name: "delegates", value: v, checked: byName.has(v) }), v),
          h("select", { name: `delegate_context:${v}`, "aria-label": `Context of ${v}`, dataset: { field: "context" } },
            modes.map((m) => h("option", { value: m, selected: m === mode }, m))));
      }) : h("span", { class: "muted" }, "none available")),
    field({ label: "More delegates (ids or labels)", name: "more_delegates", field: "delegates",
      value: delegates.map(delegateName).filter((d) => !others.includes(d)).join(", ") }));
}

/** The `delegates` list the form says, in the API's shape. */
export function readDelegates(data, stored) {
  const byName = new Map(stored.map((d) => [delegateName(d), d]));
  const listed = data.getAll("delegates").map((v) => entry(v, String(data.get(`delegate_context:${v}`) || "full")));
  const more = listOf(data.get("more_delegates")).map((v) => (byName.has(v) ? byName.get(v) : v));
  return [...listed, ...more];
}
