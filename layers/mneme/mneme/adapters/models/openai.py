"""The ``openai-compatible`` adapter of the ModelClient port (SPEC §2, issue 16): Chat Completions with tools
against a configured endpoint (OpenAI itself, vLLM, Ollama, LiteLLM, …).

One client per (base URL, API-key source); ``requests`` is imported when the first client is built, so a
deployment without such agents pays nothing for it at cold start. Connections are pooled per client.
Timeouts: 5 s to connect, 60 s to read (the Bedrock client's defaults), or the run's remaining budget when
shorter; the read timeout bounds the **whole exchange** — connection, headers, body and a retry —, not each
read (a server sending its headers or body a byte at a time would otherwise hold the call forever:
:mod:`mneme.adapters.models.deadline` cuts the connection off). An answer is read up to
:data:`MODEL_REPLY_MAX_BYTES` (an error answer up to 64 KB); a larger one is :class:`ModelUnavailable`, never
read into memory. Retries: one more attempt on a connection error or a 500/502/503/504 reply (whose body is
read up to 64 KB and the connection closed, never drained); a 429 is not retried here — it becomes
:class:`ModelThrottled`, which the state machine retries with backoff like Bedrock throttling.

Errors: 401 / 403 / 400 / 404 / 413 / 422 → :class:`ModelRequestRejected`; 429 → :class:`ModelThrottled`; any
other status, a connection failure, a timeout or a body that is not a Chat Completion →
:class:`ModelUnavailable`. An error names the status and the body's short ``code`` / ``type`` (a token such as
``invalid_api_key``), never the body's text (issue 31.8: the reason reaches run events, and the endpoint may be
an internal service; OpenAI's 401 text also echoes part of the key). Where the request may go and that no
redirect is followed: :mod:`mneme.adapters.models.egress` (a 3xx is :class:`ModelRequestRejected`).

The API key comes from an :class:`ApiKeySource`: Secrets Manager on AWS (``SecretsManagerKeys``: the agent's
``api_key_secret_arn``, else the deployment's, cached for the container's life up to ``max_age``), the
``MNEME_OPENAI_API_KEY`` setting locally. The key is sent only as ``Authorization: Bearer``, to an endpoint
the deployment allows (``mneme.adapters.openai_endpoints``), and never logged, recorded or put in an error.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from typing import TYPE_CHECKING, Any, Protocol

from mneme.adapters.models.deadline import bounded
from mneme.adapters.models.egress import check_base_url, guarded_session
from mneme.adapters.models.openai_wire import NotAChatCompletion, from_chat_completion, to_chat_completions
from mneme.errors import ModelRequestRejected, ModelThrottled, ModelTimedOut, ModelUnavailable
from mneme.observability import traced
from mneme.spec_limits import MODEL_REPLY_MAX_BYTES

if TYPE_CHECKING:
    from mneme.ports.models import ModelResponse

CONNECT_TIMEOUT, READ_TIMEOUT = 5.0, 60.0
RETRY_STATUSES = (500, 502, 503, 504)
REJECTED_STATUSES = frozenset({400, 404, 413, 422})
AUTH_STATUSES = frozenset({401, 403})
SECRET_MAX_AGE_SECONDS = 900
ERROR_BODY_MAX_BYTES = 64 * 1024  # an error answer is read for its code only
_CHUNK = 64 * 1024
_SHORT_CODE = re.compile(r"^[A-Za-z0-9_.:-]{1,48}$")


class ApiKeySource(Protocol):
    def api_key(self) -> str | None:
        """The API key to send (None: send no Authorization header, e.g. a local Ollama)."""
        ...


class StaticKey:
    """A key given by configuration (local mode: ``MNEME_OPENAI_API_KEY``)."""

    def __init__(self, key: str | None) -> None:
        self._key = key or None

    def api_key(self) -> str | None:
        return self._key


class SecretsManagerKeys:
    """The key in a Secrets Manager secret (a plain string, or JSON with ``api_key``), cached per container
    by Powertools' parameters utility for ``max_age`` seconds (a rotated key is picked up after that)."""

    def __init__(self, provider: Any, secret_arn: str, *, max_age: int = SECRET_MAX_AGE_SECONDS) -> None:
        self._provider, self._arn, self._max_age = provider, secret_arn, max_age

    def api_key(self) -> str | None:
        try:
            value = self._provider.get(self._arn, max_age=self._max_age)
        except Exception as exc:  # GetSecretValue refused or failed: the model cannot be called
            raise ModelUnavailable(
                f"the API key secret could not be read ({type(exc).__name__})", details={"secret": self._arn}
            ) from exc
        text = value.decode() if isinstance(value, bytes) else str(value or "")
        if text.lstrip().startswith("{"):
            with contextlib.suppress(ValueError, AttributeError):
                text = str(json.loads(text).get("api_key") or "")
        return text.strip() or None


class OpenAICompatibleModel:
    """Sends the recorded Converse-shaped request as a Chat Completion to ``{base_url}/chat/completions``."""

    def __init__(self, base_url: str, keys: ApiKeySource, *, allow_private: bool = False, session: Any = None) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._keys = keys
        self._allow_private = allow_private
        self._session = session or _pooled_session(allow_private)

    @traced("openai.chat_completions")
    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        """One Chat Completion; its read timeout is the run's remaining budget when that is shorter."""
        model_id = str(request.get("modelId", ""))
        check_base_url(self._url, allow_private=self._allow_private)
        headers = {"Content-Type": "application/json"}
        key = self._keys.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        payload = json.dumps(to_chat_completions(request), ensure_ascii=False).encode()
        read_timeout = min(READ_TIMEOUT, timeout_seconds or READ_TIMEOUT)
        deadline = time.monotonic() + read_timeout  # the whole exchange (a retry too), not each read
        with bounded(read_timeout) as exchange:
            try:
                status, data = self._post(payload, headers, deadline, model_id)
                if status in RETRY_STATUSES:  # once more, its error body read only up to ERROR_BODY_MAX_BYTES
                    status, data = self._post(payload, headers, deadline, model_id)
            except ModelUnavailable as exc:
                if type(exc) is ModelUnavailable and exchange.expired:  # the deadline cut the connection off
                    raise _timed_out(model_id) from exc
                raise
        if status != 200:
            raise _translate(status, _error_body(data), model_id)
        if data is None:
            raise ModelUnavailable(
                f"the model endpoint for {model_id!r} answered a body larger than {MODEL_REPLY_MAX_BYTES} bytes",
                details={"model_id": model_id},
            )
        try:
            body = json.loads(data)
        except ValueError as exc:
            raise ModelUnavailable(f"the model endpoint for {model_id!r} answered no JSON") from exc
        try:
            return from_chat_completion(_object(body))
        except NotAChatCompletion as exc:
            raise ModelUnavailable(
                f"the model endpoint for {model_id!r} answered no chat completion ({exc})",
                details={"model_id": model_id},
            ) from exc

    def _post(
        self, payload: bytes, headers: dict[str, str], deadline: float, model_id: str
    ) -> tuple[int, bytes | None]:
        """One POST: the status and the body (None when over its limit), all of it by ``deadline``."""
        import requests

        left = deadline - time.monotonic()
        if left <= 0:
            raise _timed_out(model_id)
        try:
            reply = self._session.post(
                self._url,
                data=payload,
                headers=headers,
                timeout=(min(CONNECT_TIMEOUT, left), left),
                allow_redirects=False,
                stream=True,  # the body is read below, by the deadline and up to a size
            )
        except requests.ReadTimeout as exc:
            raise _timed_out(model_id) from exc
        except requests.ConnectionError as exc:
            if _read_timed_out(exc):  # urllib3's Retry wraps a read timeout: requests calls it a ConnectionError
                raise _timed_out(model_id) from exc
            raise ModelUnavailable(
                f"the model endpoint for {model_id!r} could not be reached (ConnectionError)",
                details={"model_id": model_id, "error": "ConnectionError"},
            ) from exc
        except requests.RequestException as exc:  # connection, retries spent
            raise ModelUnavailable(
                f"the model endpoint for {model_id!r} could not be reached ({type(exc).__name__})",
                details={"model_id": model_id, "error": type(exc).__name__},
            ) from exc
        with contextlib.closing(reply):  # a body not read to its end closes the connection (never drained)
            if 300 <= reply.status_code < 400:
                raise ModelRequestRejected(
                    f"the model endpoint for {model_id!r} answered a redirect ({reply.status_code}); "
                    "it is not followed",
                    details={"model_id": model_id, "status": reply.status_code},
                )
            limit = MODEL_REPLY_MAX_BYTES if reply.status_code == 200 else ERROR_BODY_MAX_BYTES
            return reply.status_code, _read_body(reply, deadline, limit, model_id)


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise NotAChatCompletion("it is not a JSON object")
    return body


def _timed_out(model_id: str) -> ModelTimedOut:
    return ModelTimedOut(f"the model endpoint for {model_id!r} gave no answer in time", details={"model_id": model_id})


def _read_body(reply: Any, deadline: float, limit: int, model_id: str) -> bytes | None:
    """The answer's body (decoded), read until ``deadline`` (each read's timeout is the time left, so a
    dripping server cannot stretch it); None when it is larger than ``limit`` bytes (the rest is not read)."""
    from urllib3.exceptions import HTTPError, ReadTimeoutError

    length = reply.headers.get("content-length") or ""
    if length.isdigit() and int(length) > limit:
        return None
    raw, size = reply.raw, 0
    parts: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _timed_out(model_id)
        sock = getattr(getattr(raw, "connection", None), "sock", None)
        if sock is not None:
            sock.settimeout(left)
        try:
            part = raw.read1(_CHUNK, decode_content=True)
        except ReadTimeoutError as exc:
            raise _timed_out(model_id) from exc
        except (HTTPError, OSError) as exc:
            raise ModelUnavailable(
                f"the model endpoint for {model_id!r} broke off its answer ({type(exc).__name__})",
                details={"model_id": model_id, "error": type(exc).__name__},
            ) from exc
        if not part:
            return b"".join(parts)
        size += len(part)
        if size > limit:
            return None
        parts.append(part)


def _read_timed_out(exc: Exception) -> bool:
    from urllib3.exceptions import MaxRetryError, ReadTimeoutError

    wrapped = exc.args[0] if exc.args else None
    return isinstance(wrapped, MaxRetryError) and isinstance(wrapped.reason, ReadTimeoutError)


def _pooled_session(allow_private: bool) -> Any:
    from urllib3.util.retry import Retry

    retry = Retry(
        total=1,
        connect=1,
        read=0,
        status=0,  # a 5xx is retried by converse, which reads its body only up to ERROR_BODY_MAX_BYTES
        allowed_methods=frozenset({"POST"}),
        backoff_factor=0.5,
        respect_retry_after_header=False,
        raise_on_status=False,
    )
    return guarded_session(allow_private=allow_private, retry=retry, pool_size=10)


def _error_body(data: bytes | None) -> dict[str, Any]:
    try:
        body = json.loads(data) if data else None
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return error
    return {"message": error} if isinstance(error, str) else {}


def _short_code(error: dict[str, Any], status: int) -> str:
    """The body's ``code`` (else ``type``) when it is a short token; else the status alone."""
    for value in (error.get("code"), error.get("type")):
        if isinstance(value, str | int) and _SHORT_CODE.match(str(value)):
            return str(value)
    return str(status)


def _translate(status: int, error: dict[str, Any], model_id: str) -> ModelUnavailable:
    code = _short_code(error, status)
    details = {"model_id": model_id, "status": status, "code": code}
    if status in AUTH_STATUSES:
        return ModelRequestRejected(
            f"the model endpoint refused the API key for {model_id!r} ({status} {code})", details=details
        )
    if status == 429:
        return ModelThrottled(f"the model endpoint throttled {model_id!r} (429 {code})", details=details)
    if status in REJECTED_STATUSES:
        return ModelRequestRejected(
            f"the model endpoint rejected the request for {model_id!r} ({status} {code})", details=details
        )
    return ModelUnavailable(f"the model endpoint for {model_id!r} failed ({status} {code})", details=details)
