"""A SigV4-signed OpenSearch client on botocore: the six calls the memory store makes, nothing else.

Why not opensearch-py: it made a Lambda cold start ~65 ms slower (it imports requests, charset-normalizer and
asyncio; measured side by side in docs/performance.md §1) and took 4.4 MiB of the layer, for an HTTP call botocore,
which every mneme process loads anyway, already signs (``SigV4Auth``) and sends (``URLLib3Session``, the
connection pool botocore's own clients use). The request shapes are opensearch-py's:

* every request is signed for ``aoss`` (Serverless) or ``es`` (a managed domain) with frozen credentials, and
  carries ``X-Amz-Content-SHA256`` (Serverless requires it), added after signing as opensearch-py's
  ``AWSV4SignerAuth`` does; without credentials (the tests' local osmem-server) nothing is signed;
* path segments (index names, service-assigned ``_id``\\ s like ``1%3A0%3A...``) are percent-encoded;
* proxies come from the environment (``HTTPS_PROXY`` / ``NO_PROXY``), as for botocore's own clients;
* a connection failure, a connect timeout and 429 / 502 / 503 / 504 are retried up to ``max_retries`` times
  after a short pause (opensearch-py retries 502–504 and connection errors 3 times); a read timeout is not
  retried (a write may have been applied), and an error answer raises :class:`OpenSearchHTTPError` with
  OpenSearch's error type (``index_not_found_exception``, ...) for the store to translate.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import date, datetime
from typing import Any
from urllib.parse import quote, urlencode

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.exceptions import ConnectionError as BotoConnectionError
from botocore.exceptions import HTTPClientError, ReadTimeoutError
from botocore.httpsession import URLLib3Session
from botocore.utils import get_environ_proxies

_RETRIED_STATUS = frozenset({429, 502, 503, 504})
_PAUSE_SECONDS = 0.05  # doubled per retry: 0.05, 0.1, 0.2 s


class OpenSearchHTTPError(Exception):
    """An error answer (``status``) or a failed connection (``status`` None), with OpenSearch's error type."""

    def __init__(self, status: int | None, error: str, reason: str = "") -> None:
        super().__init__(f"{status if status is not None else 'no answer'} {error}: {reason}".rstrip(": "))
        self.status = status
        self.error = error
        self.reason = reason


def _json_default(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_json_default)


def _error_of(status: int, payload: bytes) -> OpenSearchHTTPError:
    try:
        answer = json.loads(payload or b"{}")
    except ValueError:
        return OpenSearchHTTPError(status, "http_error", payload[:200].decode("utf-8", "replace"))
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        root = (error.get("root_cause") or [{}])[0]
        return OpenSearchHTTPError(status, str(error.get("type", "")), str(error.get("reason") or root.get("reason")))
    if isinstance(error, str):
        return OpenSearchHTTPError(status, error)
    return OpenSearchHTTPError(status, "not_found" if status == 404 else "http_error", _dumps(answer)[:200])


class _Indices:
    def __init__(self, client: SignedOpenSearch) -> None:
        self._client = client

    def exists(self, index: str) -> bool:
        return self._client.request("HEAD", (index,), missing_ok=True) is not None

    def create(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._client.answer("PUT", (index,), body=_dumps(body))

    def put_mapping(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._client.answer("PUT", (index, "_mapping"), body=_dumps(body))


class SignedOpenSearch:
    """The calls :class:`mneme.adapters.opensearch.store.OpenSearchMemoryStore` makes, with opensearch-py's
    keyword names (``index=``, ``body=``, ``id=``): search, get, bulk, indices.exists / create / put_mapping."""

    def __init__(
        self,
        url: str,
        *,
        region: str = "",
        service: str = "aoss",
        credentials: Any = None,
        timeout: float = 10.0,
        max_pool_connections: int = 20,
        max_retries: int = 3,
    ) -> None:
        self._url = url.rstrip("/")
        self._region = region
        self._service = service
        self._credentials = credentials
        self._max_retries = max_retries
        # the stubs say int; urllib3 takes any number of seconds (botocore itself passes a (connect, read) pair).
        # Proxies from the environment (HTTPS_PROXY, NO_PROXY), as botocore's clients and opensearch-py take them.
        self._http = URLLib3Session(
            verify=True,
            proxies=get_environ_proxies(self._url),
            timeout=timeout,  # type: ignore[arg-type]
            max_pool_connections=max_pool_connections,
        )
        self.indices = _Indices(self)

    # --------------------------------------------------------------------------------------- the calls
    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.answer("POST", (index, "_search"), body=_dumps(body))

    def msearch(self, index: str, body: list[dict[str, Any]]) -> dict[str, Any]:
        """Several searches in one request (``body``: header and search lines alternating)."""
        lines = "".join(_dumps(line) + "\n" for line in body)
        return self.answer("POST", (index, "_msearch"), body=lines, content_type="application/x-ndjson")

    def get(self, index: str, id: str, _source_excludes: list[str] | None = None) -> dict[str, Any]:
        query = {"_source_excludes": ",".join(_source_excludes)} if _source_excludes else {}
        return self.answer("GET", (index, "_doc", id), query=query)

    def bulk(self, body: list[dict[str, Any]], refresh: str | None = None) -> dict[str, Any]:
        lines = "".join(_dumps(line) + "\n" for line in body)
        query = {"refresh": refresh} if refresh else {}
        return self.answer("POST", ("_bulk",), query=query, body=lines, content_type="application/x-ndjson")

    # ------------------------------------------------------------------------------------------- HTTP
    def answer(self, method: str, path: tuple[str, ...], **options: Any) -> dict[str, Any]:
        """The answer as JSON (:meth:`request`'s options)."""
        result: dict[str, Any] = json.loads(self.request(method, path, **options) or b"{}")
        return result

    def request(
        self,
        method: str,
        path: tuple[str, ...],
        *,
        query: dict[str, str] | None = None,
        body: str | None = None,
        content_type: str = "application/json",
        missing_ok: bool = False,
    ) -> bytes | None:
        """The answer's bytes (None for a 404 when ``missing_ok``); raises :class:`OpenSearchHTTPError`."""
        url = self._url + "/" + "/".join(quote(part, safe="") for part in path)
        if query:
            url += "?" + urlencode(query)
        data = body.encode() if body is not None else b""
        headers = {"Content-Type": content_type} if body is not None else {}
        for attempt in range(self._max_retries + 1):
            last = attempt == self._max_retries
            try:
                response = self._http.send(self._signed(method, url, data, headers).prepare())
            except ReadTimeoutError as exc:
                raise OpenSearchHTTPError(None, "read_timeout", str(exc)) from exc
            except (HTTPClientError, BotoConnectionError) as exc:
                if last:
                    raise OpenSearchHTTPError(None, "connection_error", str(exc)) from exc
            else:
                status, payload = response.status_code, response.content
                if status < 300:
                    return bytes(payload)
                if status == 404 and missing_ok:
                    return None
                if last or status not in _RETRIED_STATUS:
                    raise _error_of(status, payload)
            time.sleep(_PAUSE_SECONDS * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _signed(self, method: str, url: str, data: bytes, headers: dict[str, str]) -> AWSRequest:
        request = AWSRequest(method=method, url=url, data=data, headers=dict(headers))
        if self._credentials is None:
            return request
        SigV4Auth(self._credentials.get_frozen_credentials(), self._service, self._region).add_auth(request)
        request.headers["X-Amz-Content-SHA256"] = hashlib.sha256(data).hexdigest()
        return request
