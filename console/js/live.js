// Live updates: the ONE place that decides how the console follows a run while it is in progress.
//
// With a `watch` (the long-poll `GET /v1/runs/{id}/events?tree=true&cursor=…&wait=<s>`), `follow` first
// takes the position at the end of what exists (a `wait=0` read), then loads a snapshot, and then asks the
// server to answer as soon as something happens after that position: one held request instead of one poll
// a second. Every answer (an event, or the end of a quiet wait) brings one new snapshot; at most one load
// starts per `interval`. Any error (the long-poll or a load) makes it fall back to the plain poll — `load`
// every `interval` ms (5 × in a hidden tab) — and it tries the long-poll again after `retryAfter` ms.
// Callers only see `onUpdate(snapshot)` calls and the returned stop function, which also aborts a held
// request.

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

/**
 * Follow a resource: `load()` resolves to a snapshot; `onUpdate(snapshot)` is called after each load;
 * following ends when `done(snapshot)` is true or the returned function is called.
 * `watch(cursor, waitSeconds, signal, limit)` resolves to `{events, cursor}` (the long-poll); without it, it polls.
 * `wait` is the long-poll's wait in seconds, or a function returning it (read before each request).
 */
export function follow(load, onUpdate, {
  interval = 1000, done = () => false, onError = () => {}, watch = null, wait = 20, retryAfter = 30_000, pageSize = 1000,
} = {}) {
  const abort = new AbortController();
  const { signal } = abort;
  let lastLoad = 0;

  /** Load and show a snapshot; true when following is over (done, or stopped). */
  async function refresh() {
    const gap = lastLoad + interval - Date.now();
    if (gap > 0) await sleep(gap, signal);
    if (signal.aborted) return true;
    lastLoad = Date.now();
    const snapshot = await load();
    if (signal.aborted) return true;
    onUpdate(snapshot);
    return done(snapshot);
  }

  /** The long-poll; resolves false when it failed (the caller falls back to polling). */
  async function longPoll() {
    const ask = async (cursor, seconds) => {
      const held = new AbortController();
      const cut = () => held.abort();
      signal.addEventListener("abort", cut, { once: true });
      const timer = setTimeout(cut, (seconds + 15) * 1000); // a request the network lost ends too
      try {
        return await watch(cursor, seconds, held.signal, pageSize);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", cut);
      }
    };
    try {
      // the position at the end of what exists, taken before the snapshot: nothing after it is missed
      let answer = await ask(null, 0);
      while (answer.events.length >= pageSize && !signal.aborted) answer = await ask(answer.cursor, 0);
      let cursor = answer.cursor;
      while (!signal.aborted) {
        if (await refresh()) return true;
        const seconds = Math.max(0, Math.min(20, typeof wait === "function" ? wait() : wait));
        answer = await ask(cursor, seconds);
        cursor = answer.cursor;
      }
      return true;
    } catch (error) {
      if (signal.aborted) return true;
      onError(error);
      return false;
    }
  }

  /** The plain poll, until done, stopped, or (with a watch) time to try the long-poll again. */
  async function poll(until) {
    while (!signal.aborted && Date.now() < until) {
      try {
        if (await refresh()) return true;
      } catch (error) {
        if (signal.aborted) return true;
        onError(error);
      }
      await sleep(document.hidden ? interval * 5 : interval, signal);
    }
    return signal.aborted;
  }

  (async () => {
    if (!watch) return poll(Infinity);
    while (!signal.aborted) {
      if (await longPoll()) return true;
      if (await poll(Date.now() + retryAfter)) return true;
    }
    return true;
  })();
  return () => abort.abort();
}
