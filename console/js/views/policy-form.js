// The memory policy (SPEC §5.1) as a fieldset: every field optional — blank / "not set" inherits (a task
// from its agent, an agent from the defaults). Inputs carry `data-field="memory_policy.<key>"` so the
// server's 400 lands next to the right one.

import { field, h } from "../dom.js";
import { listOf } from "../forms.js";

const BOOLEANS = [
  ["auto_read_enabled", "Auto-inject memories", "default: yes"],
  ["allow_write", "Auto-write after each successful run", "default: no"],
  ["allow_tool_write", "memory-write / memory-update tools may write", "default: no"],
  ["allow_tool_delete", "memory-delete tool may delete", "default: no"],
];
const LISTS = [
  ["read_namespaces", "Auto-inject reads", "one pattern a line; default: vector.agent.${user_id}.memory, vector.user.${user_id}.memory"],
  ["standing_namespaces", "Shown in every run, whatever the question", "one namespace a line, no wildcard (e.g. vector.user.${user_id}.preferences); the newest 10 entries, 1,500 characters; default: none"],
  ["tool_read_namespaces", "memory-search may read", "one pattern a line; default: none"],
  ["allowed_write_namespaces", "Tool writes and deletes may change", "one pattern a line; default: none"],
];
const NUMBERS = [
  ["top_k", "top_k", "1–20; default 5", "1"],
  ["min_score", "min_score", "floor on the calibrated relevance; default: hybrid 0.35 (local MiniLM), 0.3 (Titan V2); vector 0.1 / 0.2", "0.01"],
  ["relative_cutoff", "relative_cutoff", "fraction of the best (0 = off); default 0 (off)", "0.01"],
];

export function policyFieldset(policy = {}, legend = "Memory policy") {
  const p = policy || {};
  return h("fieldset", { dataset: { field: "memory_policy" } },
    h("legend", {}, legend),
    h("div", { class: "row" }, BOOLEANS.map(([key, label, hint]) => field({
      label, name: `mp_${key}`, field: `memory_policy.${key}`, type: "select", hint,
      options: [["", "not set"], ["true", "yes"], ["false", "no"]],
      value: p[key] === true ? "true" : p[key] === false ? "false" : "",
    }))),
    h("div", { class: "row" }, NUMBERS.map(([key, label, hint, step]) => field({
      label, name: `mp_${key}`, field: `memory_policy.${key}`, type: "number", step, hint, value: p[key] ?? "",
    }))),
    LISTS.map(([key, label, hint]) => field({
      label, name: `mp_${key}`, field: `memory_policy.${key}`, type: "textarea", rows: 2, hint, value: (p[key] || []).join("\n"),
    })),
    field({ label: "Auto-write target", name: "mp_write_namespace", field: "memory_policy.write_namespace", hint: "default: vector.agent.${user_id}.memory", value: p.write_namespace ?? "" }));
}

/** The policy object of the fieldset's current values (unset fields as null) over `stored`: the fields the form
 * does not show (retrieval, extraction, namespace_rules, …, set through the API) are kept as they were. */
export function readPolicy(form, stored = {}) {
  const data = new FormData(form);
  const policy = { ...(stored || {}) };
  for (const [key] of BOOLEANS) {
    const v = data.get(`mp_${key}`);
    policy[key] = v === "" ? null : v === "true";
  }
  for (const [key] of NUMBERS) {
    const v = String(data.get(`mp_${key}`) ?? "").trim();
    policy[key] = v === "" ? null : Number(v);
  }
  for (const [key] of LISTS) {
    const v = String(data.get(`mp_${key}`) ?? "");
    policy[key] = v.trim() === "" ? null : listOf(v.replace(/,/g, "\n"));
  }
  const target = String(data.get("mp_write_namespace") ?? "").trim();
  policy.write_namespace = target || null;
  return policy;
}
