// The delegation tree of the trace view: one button per run with its agent, status, depth, duration,
// tokens (with cache reads and writes) and cost (`usage.cost_usd` of GET /v1/runs/{id}, priced by the
// server's price table; 0 for a model without a price).

import { badge, duration, h, number, usd } from "../dom.js";

export function nodeTokens(usage) {
  if (!usage) return "";
  return `${number(usage.input_tokens)} in · ${number(usage.output_tokens)} out · ${usd(usage.cost_usd)}`;
}

export function treeView(node, selected, select) {
  const { run } = node;
  const button = h("button", {
    type: "button",
    class: "node",
    "aria-current": run.run_id === selected ? "true" : null,
    dataset: { key: `node-${run.run_id}`, run: run.run_id, depth: String(run.depth) },
    onclick: () => select(run.run_id),
  },
  h("span", {}, h("b", {}, run.agent_id), " ", badge(run.status)),
  h("span", { class: "meta" }, `depth ${run.depth} · ${duration(run.created_at, run.updated_at)}`),
  run.usage ? h("span", { class: "meta", dataset: { testid: "node-usage" } }, nodeTokens(run.usage)) : null,
  run.usage && (run.usage.cache_read_tokens || run.usage.cache_write_tokens)
    ? h("span", { class: "meta" }, `cache ${number(run.usage.cache_read_tokens)} read / ${number(run.usage.cache_write_tokens)} write`) : null);
  return h("li", {}, button, node.children.length ? h("ul", {}, node.children.map((c) => treeView(c, selected, select))) : null);
}
