// The only way the console talks to mneme: the public HTTP API (SPEC §10), with the Bearer token.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error;
    this.field = body && body.field;
    this.body = body;
  }
}

const state = { base: "", token: async () => null, unauthorized: () => {} };

/** baseUrl: "" locally (same origin), else the API URL; token(): the current bearer token or null. */
export function configureApi({ baseUrl = "", token, unauthorized }) {
  state.base = baseUrl.replace(/\/+$/, "");
  if (token) state.token = token;
  if (unauthorized) state.unauthorized = unauthorized;
}

export async function api(method, path, body, { headers = {}, signal, handle401 = true } = {}) {
  const token = await state.token();
  const init = { method, headers: { Accept: "application/json", ...headers }, signal };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(state.base + path, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, { error: "network", message: `the API could not be reached (${error.message})` });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: "bad_response", message: text.slice(0, 300) };
    }
  }
  if (response.status === 401 && handle401) state.unauthorized();
  if (!response.ok) {
    // a 429 or 503 says how long to wait (Retry-After, seconds): the user is told, not left to retry at once
    const wait = Number.parseInt(response.headers.get("Retry-After") || "", 10);
    if ((response.status === 429 || response.status === 503) && Number.isFinite(wait) && wait >= 0) {
      data = { ...(data || {}), message: `${(data && data.message) || `HTTP ${response.status}`} (try again in ${wait} s)` };
    }
    throw new ApiError(response.status, data);
  }
  const etag = response.headers.get("ETag");
  // the resource's entity tag, kept beside its fields (not one of them: a spread or JSON.stringify leaves it out)
  if (etag && data && typeof data === "object") Object.defineProperty(data, "etag", { value: etag });
  return data;
}

export const get = (path, options) => api("GET", path, undefined, options);
export const put = (path, body, options) => api("PUT", path, body, options);
export const post = (path, body, options) => api("POST", path, body, options);
export const del = (path, options) => api("DELETE", path, undefined, options);

/** The headers of a save that replaces only what was read (`etag` of the GET or of the last save), or that creates
 * only (a new resource): the API answers 412 instead of overwriting a change made elsewhere in between. */
export function onlyIfUnchanged(etag) {
  return { headers: etag ? { "If-Match": etag } : { "If-None-Match": "*" } };
}

/** Every item of a paged list (GET /v1/agents, …/tasks, /v1/skills, /v1/chats), page after page: `{ [key]: items }`. */
export async function getAll(path, key) {
  const items = [];
  let cursor = null;
  do {
    const page = await get(path + query({ cursor }));
    items.push(...(page[key] || []));
    cursor = page.cursor;
  } while (cursor);
  return { [key]: items };
}

/** A path segment, escaped. */
export const seg = (value) => encodeURIComponent(String(value));

/** "?a=1&b=2" from an object, skipping empty values. */
export function query(params) {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "");
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : "";
}
