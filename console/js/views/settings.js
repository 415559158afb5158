// The user's settings (GET/PUT /v1/me/settings): name, email, language and timezone — what runs put in
// ${user_name}, ${user_email} and the dates. A save sends If-Match with the tag the page loaded (../api.js).

import { ApiError, get, onlyIfUnchanged, put } from "../api.js";
import { field, h } from "../dom.js";
import { clearErrors, showError, showWarnings } from "../forms.js";

const FIELDS = ["name", "email", "language", "timezone"];

export async function settingsView() {
  const settings = await get("/v1/me/settings");
  let etag = settings.etag;
  const form = h("form", { class: "stack", novalidate: true, dataset: { form: "settings" } },
    h("h2", {}, "You"),
    h("div", { class: "row" },
      field({ label: "Name", name: "name", value: settings.name, autocomplete: "name", hint: "${user_name} in a task's context" }),
      field({ label: "Email", name: "email", type: "email", value: settings.email, autocomplete: "email", hint: "${user_email}" })),
    h("div", { class: "row" },
      field({ label: "Language", name: "language", value: settings.language, hint: "a BCP-47 tag: en, de, fr-CA" }),
      field({ label: "Timezone", name: "timezone", value: settings.timezone, hint: "an IANA name: Europe/Berlin, UTC" })),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Save")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    try {
      const stored = await put("/v1/me/settings", Object.fromEntries(FIELDS.map((f) => [f, String(data.get(f)).trim()])), onlyIfUnchanged(etag));
      etag = stored.etag;
      showWarnings(form, stored.warnings);
    } catch (error) {
      showError(form, error.status === 412 ? new ApiError(412, { message: "Not saved: your settings were changed elsewhere (another tab or the API) since you opened this page. Reload it to see them, then make your change again." }) : error);
    }
  });
  return { node: h("div", { dataset: { view: "settings" } }, h("h1", {}, "Settings"),
    h("p", { class: "muted" }, "Runs greet you by this name and write dates in this language and timezone."), form) };
}
