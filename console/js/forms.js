// Inline errors and warnings of the server (SPEC §10: a 400 names the failing `field`; saves may answer
// `warnings: [..]`). An error goes next to the input whose `data-field` is the longest prefix of the
// error's field (`memory_policy.read_namespaces.0` → the read_namespaces input), else above the form.

import { ApiError, get } from "./api.js";
import { h } from "./dom.js";

export function clearErrors(form) {
  for (const el of form.querySelectorAll("[data-error-for], [data-form-message]")) el.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    const described = (el.getAttribute("aria-describedby") || "").split(" ").filter((id) => id && !id.startsWith("err-"));
    if (described.length) el.setAttribute("aria-describedby", described.join(" "));
    else el.removeAttribute("aria-describedby");
  }
}

/** The control for an API field path, or null. */
export function controlFor(form, fieldPath) {
  if (!fieldPath) return null;
  const parts = String(fieldPath).split(".");
  while (parts.length) {
    const name = parts.join(".");
    const found = [...form.querySelectorAll("[data-field]")].find((el) => el.dataset.field === name);
    if (found) return found;
    parts.pop();
  }
  return null;
}

/** Put a message at the top of `form` (after its heading); removed by the next clearErrors(). */
export function formMessage(form, node) {
  node.dataset.formMessage = "";
  const anchor = form.querySelector("h2, h3, legend");
  if (anchor && anchor.parentNode === form) anchor.after(node);
  else form.prepend(node);
}

/** Show `error` in `form`, in place of any earlier error or message there (the newest outcome only); an error with
 * a `link` ({href, text}) — e.g. to the agent that already has the id — ends with it. */
export function showError(form, error) {
  clearErrors(form);
  const link = error && error.link;
  const code = error instanceof ApiError && error.status && !link ? ` (${error.status} ${error.code || ""})` : "";
  const message = error instanceof ApiError ? `${error.message}${code}` : String(error.message || error);
  const control = error instanceof ApiError ? controlFor(form, error.field) : null;
  if (control) {
    const id = `err-${control.id || Math.random().toString(36).slice(2)}`;
    control.setAttribute("aria-invalid", "true");
    control.setAttribute("aria-describedby", `${control.getAttribute("aria-describedby") || ""} ${id}`.trim());
    const at = control.closest(".field") || control;
    at.append(h("p", { class: "field-error", id, role: "alert", dataset: { errorFor: error.field } }, message));
    control.focus();
    return;
  }
  formMessage(form, h("div", { class: "alert", role: "alert" }, message, link ? [" ", h("a", { href: link.href }, link.text)] : null));
}

/** A refused save (412 of `onlyIfUnchanged`) in words for the form's user; any other error as it is. A creation
 * refused because the id is taken (`isNew`) says so plainly, with a link to `href`, the resource that has it. */
export function staleSave(error, what, { isNew = false, action = "saved", href } = {}) {
  if (!(error instanceof ApiError) || error.status !== 412) return error;
  const message = isNew
    ? `Not created: ${/^[aeiou]/.test(what) ? "an" : "a"} ${what} with this id already exists.`
    : `Not ${action}: this ${what} was changed elsewhere (another tab, a teammate or the API) since you opened it. Reload the page to see the current version, then make your change again.`;
  const refused = new ApiError(412, { ...error.body, message, field: undefined });
  if (isNew && href) refused.link = { href, text: `Open the existing ${what}` };
  return refused;
}

export function showWarnings(form, warnings, savedText = "Saved.") {
  const list = warnings || [];
  formMessage(form, list.length
    ? h("div", { class: "warn", role: "status", dataset: { testid: "warnings" } }, h("b", {}, `${savedText} Warnings:`), h("ul", {}, list.map((w) => h("li", {}, w))))
    : h("div", { class: "note", role: "status" }, savedText));
}

/** "a, b\nc" → ["a", "b", "c"]; blank → []. */
export function listOf(text) {
  return String(text || "").split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
}

/** The address segment of a "new" form (`#/agents/+new`, `#/skills/+new`, `…/tasks/+new`): no id can be it (ids are
 * lowercase letters, digits and hyphens), so an agent, task or skill named `new` opens at `…/new` like any other. */
export const NEW = "+new";

/** Is `segment` an old link to a "new" form (`…/new`, before the forms moved to `+new`)? Only when nothing named
 * `new` exists at `path`; the address then becomes the form's (`newHash`). */
export async function oldNewLink(segment, path, newHash) {
  if (segment !== "new") return false;
  try {
    await get(path);
    return false;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  history.replaceState(null, "", newHash);
  return true;
}
