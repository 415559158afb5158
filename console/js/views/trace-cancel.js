// Cancel from the trace view: `POST /v1/runs/{id}/cancel` ends the run and every unfinished run below it
// (their pending approvals become void). Shown while the selected run is unfinished; the server's refusal
// (409: it ended otherwise meanwhile) is shown next to the button.

import { post, seg } from "../api.js";
import { announce, h } from "../dom.js";

/** The cancel control for `run` (null once it is final); `after()` reloads the trace. */
export function cancelControl(run, final, after) {
  if (final) return null;
  const what = run.parent_run_id ? "this sub-run" : "the run";
  const status = h("p", { class: "field-error", role: "alert", dataset: { testid: "cancel-error" } });
  const button = h("button", {
    type: "button",
    class: "danger",
    dataset: { key: `cancel-${run.run_id}` },
    "aria-describedby": `cancel-hint-${run.run_id}`,
    onclick: async () => {
      if (!window.confirm(`Cancel ${what} ${run.run_id} and every unfinished run below it?`)) return;
      button.disabled = true;
      status.textContent = "";
      try {
        const answer = await post(`/v1/runs/${seg(run.run_id)}/cancel`, {});
        announce(`Run ${run.run_id} ${answer.status}: ${answer.cancelled.length} run(s) cancelled`);
        after();
      } catch (error) {
        status.textContent = `${error.status || ""} ${error.message}`.trim();
        button.disabled = false;
      }
    },
  }, run.parent_run_id ? "Cancel this sub-run" : "Cancel the run");
  return h("div", { class: "actions", dataset: { section: "cancel" } },
    button,
    h("span", { class: "muted", id: `cancel-hint-${run.run_id}` }, "ends it and every unfinished run below it; pending approvals become void"),
    status);
}
