// Why a search recalled what it did (issue 35.1): each hit's score parts, and every entry that was not
// recalled with the first rule that kept it out — shown under the results when "Explain" is ticked.

import { h, scrollable } from "../dom.js";

const REASONS = {
  namespace_not_granted: "namespace not searched",
  deleted: "deleted",
  superseded: "superseded",
  expired: "expired",
  not_retrieved: "beyond the search depth",
  below_floor: "below the score floor",
  duplicate: "duplicate",
  relative_cutoff: "cut by the relative cutoff",
  top_k: "beyond top_k",
};

const num = (value) => (value === null || value === undefined ? "–" : Number(value).toFixed(4));

/** The reason in words, with what it names (the rule, what superseded it, the hit it duplicates). */
export function reasonText(entry) {
  const base = REASONS[entry.reason] || entry.reason.replace(/_/g, " ");
  if (entry.rule) return `${base} (${entry.rule})`;
  if (entry.superseded_by) return `${base} by ${entry.superseded_by}`;
  if (entry.duplicate_of) return `${base} of ${entry.duplicate_of}`;
  if (entry.says_nothing) return `${base}: a note that shares no word with the question and is not like it`;
  return base;
}

function nameLiftText(lift) {
  if (lift.unknown && lift.unknown.length) {
    return `The question names ${lift.unknown.join(", ")}, whom no memory you can read mentions: `
      + "its vector similarity, which is about someone else, counts for nothing.";
  }
  return `The question names ${lift.names.join(", ")}, a speaker of these memories: its vector part is ranked `
    + "without the name (what they said a little higher), and without the name it kept "
    + `${Math.round(100 * lift.vector_share)} % of its vector confidence.`;
}

/** What vouched for the question at all: a min_score above its confidence recalls nothing. */
export function confidenceText(c, minScore) {
  const vector = c.vector_cosine === undefined ? ""
    : `best cosine ${num(c.vector_cosine)}`
      + (c.vector_evidence > c.vector_cosine ? ` (${num(c.vector_evidence)} with a long memory's lift)` : "")
      + (c.vector_standout > 0 ? `, standing out of the other memories: ${num(c.vector_standout)}` : "") + ", ";
  const verdict = c.value < minScore
    ? `under min_score ${num(minScore)}: nothing can be recalled.`
    : `a hit can score up to ${num(c.value)} before its rule bonus and recency.`;
  return `Confidence ${num(c.value)} (${vector}keyword coverage ${num(c.keyword_coverage)}): ${verdict}`;
}

export function explanationPanel(explanation) {
  const t = explanation.thresholds || {};
  const parts = ["similarity", "vector", "keyword", "rule_bonus", "recency", "relevance"];
  return h("div", { class: "panel", dataset: { testid: "memory-explanation" } },
    h("h3", {}, "Why these results"),
    h("p", { class: "kv muted" },
      h("span", {}, `retrieval ${t.retrieval} · fusion ${t.fusion}`),
      h("span", {}, `min_score ${num(t.min_score)} · relative cutoff ${num(t.relative_cutoff)} · top_k ${t.top_k}`)),
    t.confidence ? h("p", { class: "muted", dataset: { testid: "confidence" } }, confidenceText(t.confidence, t.min_score)) : null,
    t.name_lift ? h("p", { class: "muted", dataset: { testid: "name-lift" } }, nameLiftText(t.name_lift)) : null,
    explanation.hits.length ? scrollable(h("table", { dataset: { testid: "explained-hits" } },
      h("thead", {}, h("tr", {}, ["id", ...parts].map((c, i) => h("th", { scope: "col", class: i ? "num" : null }, c)))),
      h("tbody", {}, explanation.hits.map((hit) => h("tr", { dataset: { memory: hit.id } },
        h("td", { class: "mono" }, hit.id.slice(0, 12)),
        parts.map((p) => h("td", { class: "num" }, num((hit.scores || {})[p])))))))) : null,
    h("h4", {}, `Not recalled (${explanation.dropped.length})`),
    explanation.dropped.length ? scrollable(h("table", { dataset: { testid: "explained-dropped" } },
      h("thead", {}, h("tr", {}, ["id", "namespace", "why", "relevance"].map((c, i) => h("th", { scope: "col", class: i === 3 ? "num" : null }, c)))),
      h("tbody", {}, explanation.dropped.map((entry) => h("tr", { dataset: { memory: entry.id, reason: entry.reason } },
        h("td", { class: "mono" }, entry.id.slice(0, 12)), h("td", { class: "mono" }, entry.namespace || ""),
        h("td", {}, reasonText(entry)), h("td", { class: "num" }, num((entry.scores || {}).relevance)))))))
      : h("p", { class: "muted" }, "Nothing else was considered."));
}
