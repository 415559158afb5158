// Small DOM helpers. Text always goes in as text (never as HTML): memory contents, tool results and model
// output are untrusted.

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "…"}, "text", child, [more children])
 * Attributes: `class`, `dataset` (object), `on<event>` (listener), booleans (true → present, false → absent).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "value" && "value" in el) el.value = value;
    else if (name === "checked" || name === "selected") el[name] = Boolean(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A wide table in a box of its own that scrolls sideways, so the page itself never does (a phone's width). */
export function scrollable(table) {
  return h("div", { class: "table-scroll" }, table);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

let uid = 0;
/** A unique element id (labels, aria-describedby). */
export function newId(prefix = "id") {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * Replace `container`'s content, keeping keyboard focus (by `data-key`) and the <details> a person opened
 * or closed (by `data-key`; the default open state of new content is left alone).
 */
export function replacePreserving(container, nodes) {
  if (!container.dataset.tracksToggles) {
    container.dataset.tracksToggles = "1";
    container.addEventListener("click", (event) => {
      const summary = event.target.closest("summary");
      const details = summary && summary.parentElement;
      if (details && details.dataset.key) details.dataset.touched = "1";
    }, true);
  }
  const active = document.activeElement;
  const focusKey = active && container.contains(active) ? active.dataset.key : undefined;
  const touched = new Map([...container.querySelectorAll("details[data-touched][data-key]")].map((d) => [d.dataset.key, d.open]));
  clear(container);
  append(container, [nodes]);
  for (const details of container.querySelectorAll("details[data-key]")) {
    if (touched.has(details.dataset.key)) {
      details.open = touched.get(details.dataset.key);
      details.dataset.touched = "1";
    }
  }
  if (focusKey) {
    const again = [...container.querySelectorAll("[data-key]")].find((el) => el.dataset.key === focusKey);
    if (again) again.focus({ preventScroll: true });
  }
}

/** Say something to screen readers (the polite live region). */
export function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

export function badge(status) {
  return h("span", { class: `badge ${status}` }, status.replace("_", " "));
}

export function number(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : "–";
}

/** US dollars: "$0" for nothing, 3 significant digits below a cent, else 4 decimals. */
export function usd(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  if (n === 0) return "$0";
  if (n < 0.000001) return "< $0.000001";
  return n < 0.01 ? `$${n.toPrecision(3)}` : `$${n.toFixed(4)}`;
}

export function duration(fromIso, toIso) {
  if (!fromIso || !toIso) return "–";
  const ms = new Date(toIso) - new Date(fromIso);
  if (!Number.isFinite(ms) || ms < 0) return "–";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function when(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function json(value) {
  return h("pre", { class: "mono" }, JSON.stringify(value, null, 2));
}

/** A labelled form field: {label, name, type, value, hint, field, options, rows, required, ...attrs}. */
export function field({ label, name, type = "text", value, hint, field: apiField, options, rows, ...attrs }) {
  const id = newId(name || "f");
  const hintId = hint ? `${id}-hint` : undefined;
  let control;
  const common = { id, name, dataset: { field: apiField || name }, "aria-describedby": hintId, ...attrs };
  if (type === "textarea") control = h("textarea", { ...common, rows: rows || 4 }, value ?? "");
  else if (type === "select") {
    control = h("select", common, (options || []).map((o) => {
      const [v, text] = Array.isArray(o) ? o : [o, o];
      return h("option", { value: v, selected: String(v) === String(value ?? "") }, text);
    }));
  } else control = h("input", { ...common, type, value: value ?? "" });
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("span", { class: "hint", id: hintId }, hint) : null);
}

/** An ETag as a short version label, the same in a run's trace and in its agent's history: `"3f2a9c01…"` → `3f2a9c01`. */
export const shortVersion = (etag) => String(etag || "").replace(/^W\//, "").replace(/"/g, "").slice(0, 8);
