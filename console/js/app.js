// The console's entry point: configuration, sign-in, and the hash router (#/runs, #/runs/<id>, …).

import { ApiError, configureApi, get } from "./api.js";
import * as auth from "./auth.js";
import { clear, h } from "./dom.js";
import { forgetDraft, restoreDraft, saveDraft, trackEdits } from "./drafts.js";
import { agentsView } from "./views/agents.js";
import { auditView } from "./views/audit.js";
import { memoryView } from "./views/memory.js";
import { previewView } from "./views/preview.js";
import { forgetStarted, runsView } from "./views/runs.js";
import { settingsView } from "./views/settings.js";
import { skillsView } from "./views/skills.js";
import { traceView } from "./views/trace.js";

const main = document.getElementById("main");
let config = null;
let leave = null; // the current view's clean-up (stops following a live run)
let generation = 0; // the newest route(); an older one that finishes late is dropped

const ROUTES = [
  [/^#\/runs\/([^/]+)(?:\/([^/]+))?$/, (m) => traceView(decodeURIComponent(m[1]), m[2] ? decodeURIComponent(m[2]) : null), "runs"],
  [/^#\/runs(?:\?(.*))?$/, (m) => runsView(new URLSearchParams(m[1] || "")), "runs"],
  [/^#\/agents(?:\/(.*))?$/, (m) => agentsView((m[1] || "").split("/").filter(Boolean).map(decodeURIComponent)), "agents"],
  [/^#\/skills(?:\/([^/]+))?$/, (m) => skillsView(m[1] ? decodeURIComponent(m[1]) : null), "skills"],
  [/^#\/preview$/, () => previewView(), "preview"],
  [/^#\/memory(?:\/([^/]+))?$/, (m) => memoryView(m[1] ? decodeURIComponent(m[1]) : null), "memory"],
  [/^#\/audit$/, () => auditView(), "audit"],
  [/^#\/settings$/, () => settingsView(), "settings"],
];

function markNav(section) {
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** End the current view (its live following) and make any view still loading drop its result. */
function stopView() {
  generation += 1;
  if (leave) leave();
  leave = null;
  return generation;
}

let notice = null; // a problem to show above the next view (a `#token=` link that could not be used)

/** A `#token=` link: sign in with it (a message when it cannot be used). */
function takeLinkToken() {
  try {
    auth.takeFragmentToken(config);
    return null;
  } catch (error) {
    return `The link's token was not used: ${errorText(error)}`;
  } finally {
    showWho();
  }
}

async function route() {
  if (auth.hasFragmentToken()) {
    const problem = takeLinkToken();
    if (problem && !auth.session()) {
      stopView();
      return showSignIn(problem);
    }
    notice = problem;
  }
  if (window.location.hash && !window.location.hash.startsWith("#/") && auth.session()) return; // an anchor, not a view
  const mine = stopView();
  if (!auth.session()) return showSignIn();
  const hash = currentRoute();
  const found = ROUTES.map(([re, view, section]) => [re.exec(hash), view, section]).find(([m]) => m);
  if (!found) {
    window.location.hash = "#/runs";
    return;
  }
  const [match, view, section] = found;
  markNav(section);
  clear(main).append(h("p", { class: "muted", role: "status" }, "Loading…"));
  try {
    const rendered = await view(match);
    if (mine !== generation) {
      if (rendered.leave) rendered.leave();
      return;
    }
    clear(main);
    main.append(rendered.node);
    leave = rendered.leave || null;
    if (notice) main.prepend(h("div", { class: "alert", role: "alert" }, notice));
    notice = null;
    restoreDraft(main, hash, auth.userId()); // what was typed when the session ended, back in its form
    const heading = main.querySelector("h1");
    document.title = `${heading ? heading.textContent : "mneme"} · mneme console`;
    main.focus({ preventScroll: true });
  } catch (error) {
    if (mine === generation) clear(main).append(h("div", { class: "alert", role: "alert" }, errorText(error)));
  }
}

const currentRoute = () => window.location.hash || "#/runs";

export function errorText(error) {
  if (error instanceof ApiError) return `${error.status || "network"} ${error.code || ""}: ${error.message}`;
  return String(error && error.message ? error.message : error);
}

function showWho() {
  const who = clear(document.getElementById("who"));
  const nav = document.getElementById("nav");
  const user = auth.userId();
  nav.hidden = !user;
  if (!user) return;
  who.append(
    h("span", {}, "Signed in as ", h("b", { dataset: { testid: "user" } }, user)),
    h("button", { type: "button", class: "secondary", onclick: () => { forgetDraft(); forgetStarted(); auth.signOut(config); showWho(); route(); } }, "Sign out"),
  );
}

function showSignIn(message) {
  showWho();
  markNav(null);
  clear(main);
  const error = h("p", { class: "field-error", id: "signin-error", role: "alert" }, message || "");
  if (config.mode === "cognito") {
    main.append(h("h1", {}, "Sign in"), h("p", {}, "Sign in with your account (Cognito hosted UI)."), error,
      h("button", { type: "button", onclick: () => auth.startCognitoSignIn(config) }, "Sign in"));
    return;
  }
  const input = h("textarea", { id: "token", name: "token", rows: 3, required: true, "aria-describedby": "token-hint signin-error", autocomplete: "off", spellcheck: "false" });
  const form = h("form", { class: "stack", onsubmit: async (event) => {
    event.preventDefault();
    try {
      auth.signInWithToken(input.value);
      await get("/v1/me/settings", { handle401: false });
      showWho();
      route();
    } catch (err) {
      auth.signOut(config);
      error.textContent = err instanceof ApiError && err.status === 401 ? "The server refused this token (401): make a new one." : errorText(err);
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  } },
  h("div", { class: "field" }, h("label", { for: "token" }, "Development token"), input,
    h("span", { class: "hint", id: "token-hint" }, "Paste what ", h("code", {}, "make token USER=alice"), " prints. It stays in this tab (sessionStorage) until you sign out.")),
  error,
  h("div", {}, h("button", { type: "submit" }, "Sign in")));
  main.append(h("h1", {}, "Sign in"), h("p", {}, "Local mode: sign in with a development token."), form);
  input.focus();
}

async function boot() {
  try {
    config = await auth.loadConfig();
  } catch (error) {
    clear(main).append(h("div", { class: "alert", role: "alert" }, `The console could not load its configuration: ${errorText(error)}`));
    return;
  }
  configureApi({
    baseUrl: config.api_base_url || "",
    token: () => auth.bearer(config),
    unauthorized: () => {
      if (!auth.session()) return; // already signed out (another call of the same view got its 401 first)
      saveDraft(main, currentRoute(), auth.userId()); // the unsaved forms, given back after the next sign-in
      stopView();
      auth.signOut({ mode: "local" }); // forget the token here; a Cognito session signs in again below
      showSignIn("Your session ended (401): sign in again.");
    },
  });
  let message;
  try {
    if (config.mode === "cognito") await auth.finishCognitoSignIn(config);
  } catch (error) {
    message = errorText(error);
  }
  showWho();
  trackEdits(main);
  document.querySelector(".skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    main.focus();
  });
  window.addEventListener("hashchange", route);
  document.getElementById("nav").addEventListener("click", (event) => {
    const link = event.target.closest("a");
    if (link && link.getAttribute("href") === window.location.hash) route(); // the current view, afresh
  });
  if (message) showSignIn(message);
  else route();
}

boot();
