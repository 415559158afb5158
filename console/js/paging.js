// A listing paged with the server's cursor under a filter form (the audit trail, the runs, a namespace's entries).
// The filters are read when the listing is applied (Show); every page of it — Older, Newer, a reload — asks with
// those same filters, whatever the form says meanwhile: a cursor belongs to the query that returned it. A failed
// load clears the listing, so no page of an earlier query stays under the error.

import { clear, h } from "./dom.js";
import { clearErrors, showError } from "./forms.js";

/**
 * form: the filter form (its submit applies it); table / pager: where a page and its buttons go;
 * filters(): the query the form says now; load(params): the API's page ({cursor, …});
 * render(result, pageNumber): the page's content; pageTestId: the page label's data-testid.
 */
export function cursorPaging({ form, table, pager, filters, load, render, pageTestId }) {
  let applied = {};
  let cursors = [null]; // cursors[i] opens page i of the applied query
  let index = 0;
  let asked = 0; // the newest request: an older answer that arrives late is dropped

  async function show(at) {
    clearErrors(form);
    const mine = ++asked;
    try {
      const result = await load({ ...applied, cursor: cursors[at] });
      if (mine !== asked) return;
      index = at;
      if (result.cursor) cursors[at + 1] = result.cursor;
      else cursors.length = at + 1;
      clear(table).append(render(result, at + 1));
      clear(pager).append(
        h("button", { type: "button", class: "secondary", disabled: at === 0, onclick: () => show(at - 1) }, "← Newer"),
        h("span", { dataset: pageTestId ? { testid: pageTestId } : {} }, `Page ${at + 1}`),
        h("button", { type: "button", class: "secondary", disabled: !result.cursor, onclick: () => show(at + 1) }, "Older →"));
    } catch (error) {
      if (mine !== asked) return;
      clear(table);
      clear(pager);
      showError(form, error);
    }
  }

  /** Read the form's filters and show the first page of what they select. */
  function apply() {
    applied = filters();
    cursors = [null];
    return show(0);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply();
  });
  return { apply, reload: () => show(index) };
}
