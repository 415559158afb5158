// Live updates: the ONE place that decides how the console follows a run while it is in progress.
// Today it polls (`load` every `interval` ms until `done`). When the API offers a long-poll or a push
// channel (`GET /v1/runs/{id}/events?after=<seq>&wait=<s>`), replace the body of `follow` — its callers
// only see `onUpdate(snapshot)` calls and the returned stop function.

/**
 * Follow a resource: `load()` resolves to a snapshot; `onUpdate(snapshot)` is called after each load;
 * following ends when `done(snapshot)` is true or the returned function is called.
 */
export function follow(load, onUpdate, { interval = 1000, done = () => false, onError = () => {} } = {}) {
  let stopped = false;
  let timer = null;
  async function tick() {
    if (stopped) return;
    let snapshot;
    try {
      snapshot = await load();
    } catch (error) {
      onError(error);
    }
    if (stopped) return;
    if (snapshot !== undefined) {
      onUpdate(snapshot);
      if (done(snapshot)) return;
    }
    // a hidden tab asks five times less often
    timer = setTimeout(tick, document.hidden ? interval * 5 : interval);
  }
  tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
