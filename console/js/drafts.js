// What a person typed in a view's forms survives the end of their session: when a request answers 401, the
// fields they edited (and only those) are kept in sessionStorage under the view's route and the user's id; once
// they have signed in again and the same view has rendered, the values are put back and the draft is removed.
// Never kept: the sign-in form, password fields, and anything outside <main>'s forms.

import { h } from "./dom.js";
import { formMessage } from "./forms.js";

const KEY = "mneme.draft";

/** Mark what the person changed (typed, chose, ticked), so a draft holds their edits and nothing the page filled in. */
export function trackEdits(root) {
  const mark = (event) => {
    const control = event.target;
    if (control && control.form && control.name) control.dataset.edited = "1";
  };
  root.addEventListener("input", mark, true);
  root.addEventListener("change", mark, true);
}

const keep = (control) => control.name && control.dataset.edited && control.type !== "password" && control.name !== "token";
const formKey = (form, index) => form.dataset.form || `#${index}`;

function valueOf(control) {
  if (control.type === "checkbox" || control.type === "radio") return { value: control.value, checked: control.checked };
  if (control.multiple) return { selected: [...control.selectedOptions].map((o) => o.value) };
  return { value: control.value };
}

/** Keep the edited fields of `root`'s forms for `route` (a hash) and `user`; nothing edited → nothing kept. */
export function saveDraft(root, route, user) {
  const forms = {};
  [...root.querySelectorAll("form")].forEach((form, index) => {
    const fields = [];
    const seen = new Map(); // name → how many controls of that name came before (several inputs may share one)
    for (const control of form.elements) {
      if (!control.name) continue;
      const nth = seen.get(control.name) || 0;
      seen.set(control.name, nth + 1);
      if (keep(control)) fields.push({ name: control.name, nth, ...valueOf(control) });
    }
    if (fields.length) forms[formKey(form, index)] = fields;
  });
  if (Object.keys(forms).length) sessionStorage.setItem(KEY, JSON.stringify({ route, user, forms }));
}

function read() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

function apply(control, saved) {
  if ("checked" in saved) control.checked = saved.checked;
  else if (saved.selected) for (const option of control.options) option.selected = saved.selected.includes(option.value);
  else {
    if (control.tagName === "SELECT" && ![...control.options].some((o) => o.value === saved.value)) return false;
    control.value = saved.value;
  }
  control.dataset.edited = "1"; // still the person's edit: kept again if the session ends once more
  return true;
}

/** Forget any draft (a deliberate sign-out). */
export function forgetDraft() {
  sessionStorage.removeItem(KEY);
}

/** Put a draft kept for `route` back into `root`'s forms (then forget it); true when something was restored.
 * A draft of another user is dropped; one of another route waits for its route. */
export function restoreDraft(root, route, user) {
  const draft = read();
  if (!draft) return false;
  if (draft.user !== user) {
    sessionStorage.removeItem(KEY);
    return false;
  }
  if (draft.route !== route) return false;
  sessionStorage.removeItem(KEY);
  let restored = false;
  [...root.querySelectorAll("form")].forEach((form, index) => {
    const fields = draft.forms[formKey(form, index)];
    if (!fields) return;
    const named = new Map();
    for (const control of form.elements) if (control.name) named.set(control.name, [...(named.get(control.name) || []), control]);
    let here = false;
    for (const saved of fields) {
      const controls = named.get(saved.name) || [];
      const control = "checked" in saved ? controls.find((c) => c.value === saved.value) : controls[saved.nth];
      if (control && apply(control, saved)) here = true;
    }
    if (here) {
      restored = true;
      formMessage(form, h("div", { class: "note", role: "status", dataset: { testid: "draft-restored" } },
        "Restored what you typed before your session ended. It is not saved yet."));
    }
  });
  return restored;
}
