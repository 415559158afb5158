// Sign-in. Locally: the dev token printed by `make token USER=alice` (pasted, or `#token=…` in the URL).
// On AWS: the Cognito hosted UI, authorization-code flow with PKCE (docs/console.md). The session lives in
// sessionStorage (this tab only) and is removed on sign-out.

const SESSION = "mneme.session";
const PENDING = "mneme.pkce";
const SCOPES = "openid email profile";

export async function loadConfig() {
  const response = await fetch("/console/config.json", { cache: "no-cache" });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const config = await response.json();
  if (!["local", "cognito"].includes(config.mode)) throw new Error(`config.json: unknown mode ${config.mode}`);
  return config;
}

function read() {
  try {
    return JSON.parse(sessionStorage.getItem(SESSION) || "null");
  } catch {
    return null;
  }
}

function write(session) {
  if (session) sessionStorage.setItem(SESSION, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION);
}

/** The claims of a JWT (not verified here: the API verifies every call). */
export function claims(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const padded = part + "=".repeat((4 - (part.length % 4)) % 4);
    const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

export function session() {
  const current = read();
  if (!current || !current.token) return null;
  return current;
}

/** Seconds until the session's token expires (Infinity when it does not say). */
export function secondsLeft() {
  const current = session();
  return current && current.expires_at ? (current.expires_at - Date.now()) / 1000 : Infinity;
}

/** The signed-in user's id (the token's `sub`), or null. */
export function userId() {
  const current = session();
  const found = current && claims(current.token);
  return (found && found.sub) || null;
}

export function signInWithToken(token) {
  const trimmed = token.trim().replace(/^Bearer\s+/i, "");
  const found = claims(trimmed);
  if (!found || !found.sub) throw new Error("this is not a JWT: paste the line `make token USER=alice` prints");
  write({ kind: "local", token: trimmed, expires_at: found.exp ? found.exp * 1000 : null });
}

/** Is the address a `#token=…` link? */
export const hasFragmentToken = () => window.location.hash.startsWith("#token=");

/** `#token=…` in the URL signs in directly (local mode), at the first load or later in an open tab. The token
 * leaves the address bar and the tab's history first, whether it is then accepted or not. */
export function takeFragmentToken(config) {
  if (!hasFragmentToken()) return false;
  const raw = window.location.hash.slice("#token=".length).split("&")[0];
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}#/runs`);
  if (config.mode !== "local") throw new Error("this console signs in through its sign-in page, not with a token in the link");
  signInWithToken(decodeURIComponent(raw));
  return true;
}

export function signOut(config) {
  write(null);
  if (config.mode === "cognito") {
    const params = new URLSearchParams({ client_id: config.client_id, logout_uri: config.redirect_uri });
    window.location.assign(`${config.cognito_domain}/logout?${params}`);
  }
}

// ------------------------------------------------------------------------------------- Cognito + PKCE
function base64url(bytes) {
  let text = "";
  for (const b of new Uint8Array(bytes)) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomString(size = 32) {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

export async function startCognitoSignIn(config) {
  const verifier = randomString(48);
  const stateValue = randomString(16);
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state: stateValue, hash: window.location.hash }));
  const params = new URLSearchParams({
    response_type: "code",
    client_id: config.client_id,
    redirect_uri: config.redirect_uri,
    scope: SCOPES,
    state: stateValue,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  window.location.assign(`${config.cognito_domain}/oauth2/authorize?${params}`);
}

async function tokenRequest(config, params) {
  const response = await fetch(`${config.cognito_domain}/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: config.client_id, ...params }),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`sign-in failed: ${data.error || response.status}`);
  return data;
}

function store(data, previousRefresh) {
  write({
    kind: "cognito",
    token: data.id_token,
    refresh_token: data.refresh_token || previousRefresh,
    expires_at: Date.now() + (Number(data.expires_in) || 3600) * 1000,
  });
}

/** Back from the hosted UI with `?code=…&state=…`: exchange the code (with the PKCE verifier). */
export async function finishCognitoSignIn(config) {
  const params = new URLSearchParams(window.location.search);
  if (!params.has("code") && !params.has("error")) return false;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, "", `${window.location.pathname}${(pending && pending.hash) || "#/runs"}`);
  if (params.has("error")) throw new Error(`sign-in failed: ${params.get("error_description") || params.get("error")}`);
  if (!pending || pending.state !== params.get("state")) throw new Error("sign-in failed: the state does not match");
  const data = await tokenRequest(config, {
    grant_type: "authorization_code",
    code: params.get("code"),
    redirect_uri: config.redirect_uri,
    code_verifier: pending.verifier,
  });
  store(data);
  return true;
}

/** The bearer token for the next API call; a Cognito token about to expire is refreshed first. */
export async function bearer(config) {
  const current = session();
  if (!current) return null;
  const soon = current.expires_at && current.expires_at - Date.now() < 60_000;
  if (soon && current.kind === "cognito" && current.refresh_token) {
    try {
      store(await tokenRequest(config, { grant_type: "refresh_token", refresh_token: current.refresh_token }), current.refresh_token);
    } catch {
      return current.token; // not refreshed: an expired token brings the API's 401, which signs in again (drafts kept)
    }
    return session().token;
  }
  return current.token;
}
