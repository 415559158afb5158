"""When the clients send a call again, and after how long: shared by the sync and the async client.

A call is *repeatable* when sending it twice does nothing more than sending it once: ``GET``, ``PUT``,
``DELETE``, and the ``POST`` calls marked so — a run start always carries an ``Idempotency-Key`` (the client
makes one when none is given), so its retry answers the run the first one started, never a second run.

* ``429`` and ``503`` with ``Retry-After`` (too many run starts, a throttled or unreachable store): a repeatable
  call is sent again after that many seconds, up to ``retries`` times, unless the wait is over ``max_wait``
  (then the error is raised at once).
* A connection that could not be opened sent nothing: any call is sent again (after 0.5 s, 1 s, 2 s, ...).
* An answer lost after the request was sent (the connection closed, a read timed out): a repeatable call whose
  second sending also *answers* as the first did — not a ``DELETE`` (the second finds nothing: a 404 for a delete
  that worked) nor a save with ``If-Match`` / ``If-None-Match`` (the second finds the first's change: a 412
  for a save that worked); those raise the transport error, and the caller reads what is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from mneme_client.calls import Call
from mneme_client.errors import ApiError

#: told before each retry: what was answered (or failed) and the seconds it waits
OnRetry = Callable[[str, float], None]

RETRIED_STATUSES = frozenset({429, 503})
REPEATABLE_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE"})
BACKOFF_SECONDS = 0.5


def repeatable(call: Call[Any]) -> bool:
    """Whether sending ``call`` twice has the effect of sending it once."""
    return call.method in REPEATABLE_METHODS or call.repeatable


def said(response: httpx.Response) -> str:
    """The answer that is retried, as its error says it (``429 rate_limited: ...``)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    return str(ApiError.from_answer(response.status_code, body, response.text))


def retry_after(response: httpx.Response) -> float | None:
    """The answer's ``Retry-After`` in seconds (None: absent, or a date, which the API never sends)."""
    value = response.headers.get("Retry-After", "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return None
    return max(seconds, 0.0)


def after_answer(
    call: Call[Any], response: httpx.Response, attempt: int, retries: int, max_wait: float
) -> float | None:
    """Seconds to wait before sending ``call`` again after ``response`` (its ``attempt``-th retry), or None: use
    the answer as it is (a call that is not repeatable: a throttled store may have done part of it)."""
    if response.status_code not in RETRIED_STATUSES or attempt >= retries or not repeatable(call):
        return None
    wait = retry_after(response)
    if wait is None:
        wait = BACKOFF_SECONDS * 2.0**attempt
    return wait if wait <= max_wait else None


def answers_again(call: Call[Any]) -> bool:
    """Whether ``call``, done once already, answers a second sending as it answered the first."""
    conditional = any(name.lower() in ("if-match", "if-none-match") for name in call.headers)
    return repeatable(call) and call.method != "DELETE" and not conditional


def after_error(call: Call[Any], error: httpx.TransportError, attempt: int, retries: int) -> float | None:
    """Seconds to wait before sending ``call`` again after ``error``, or None: raise it."""
    if attempt >= retries:
        return None
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or answers_again(call):
        return float(BACKOFF_SECONDS * 2**attempt)
    return None
