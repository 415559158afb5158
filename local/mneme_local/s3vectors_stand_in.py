"""An in-process Amazon S3 Vectors (moto has no PutVectors / QueryVectors), answering a real botocore client.

:meth:`S3VectorsStandIn.attach` registers on the client's ``before-send.s3vectors`` event: botocore serializes
each request from the service model as it would for AWS, the stand-in answers it with an HTTP response, and
botocore parses that (errors included) into what the adapter reads — so the adapter's own request building
and parsing run. Nothing leaves the process.

What it obeys, from the S3 user guide ("Limitations and restrictions", "Metadata filtering", "Querying
vectors", "Inserting vectors", "Listing vectors") and the API reference: dimension 1-4,096 and every vector
of the index's dimension; up to 500 vectors a PutVectors and keys a DeleteVectors, 100 keys a GetVectors,
``topK`` 1-100, 1-1,000 vectors a ListVectors page, ``segmentCount`` 1-16 with ``segmentIndex`` below it;
filterable metadata 2 KB and all metadata 40 KB a vector, 50 keys, values strings / numbers / booleans /
lists; the filter grammar (:mod:`mneme_local.s3vectors_filter`) and no filter on a non-filterable key; a
request body of 20 MiB; a put with an existing key overwrites; float32 storage; cosine distance ``1 - cos``.
ListVectors and GetVectors are strongly consistent (ListVectors is documented so); with ``query_lag`` seconds
QueryVectors sees writes only that long after them (on the given clock), the eventual consistency a test can
ask for. :meth:`fail_next` makes the next calls answer an error (throttling, 503, …).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from botocore.awsrequest import AWSResponse, HTTPHeaders

from mneme_local.s3vectors_filter import FilterError, matches, validate

Clock = Callable[[], datetime]
MAX_DIMENSION = 4096
MAX_PUT = MAX_DELETE = 500
MAX_GET = MAX_TOP_K = 100
MAX_LIST = 1000
MAX_SEGMENTS = 16
FILTERABLE_BYTES = 2048
METADATA_BYTES = 40 * 1024
METADATA_KEYS = 50
PAYLOAD_BYTES = 20 * 1024 * 1024


class ServiceError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _invalid(message: str) -> ServiceError:
    return ServiceError(400, "ValidationException", message)


@dataclass
class Vector:
    data: np.ndarray
    metadata: dict[str, Any]


@dataclass
class Index:
    dimension: int
    non_filterable: tuple[str, ...]
    mode: str = "ENHANCED"
    vectors: dict[str, Vector] = field(default_factory=dict)  # what Get/List see (strongly consistent)
    searched: dict[str, Vector] = field(default_factory=dict)  # what QueryVectors sees
    pending: list[tuple[datetime, str, Vector | None]] = field(default_factory=list)


class _Raw(io.BytesIO):
    def stream(self, **_: Any) -> Any:
        yield self.getvalue()


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


class S3VectorsStandIn:
    """Vector buckets and indexes in memory; ``attach`` it to botocore ``s3vectors`` clients."""

    def __init__(self, *, clock: Clock | None = None, query_lag: float = 0.0) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        self._lag = timedelta(seconds=query_lag)
        self._indexes: dict[tuple[str, str], Index] = {}
        self._failures: list[ServiceError] = []
        self._lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []  # (operation, body), for tests to inspect

    # ------------------------------------------------------------------------------------------ setup
    def create_index(
        self, bucket: str, index: str, dimension: int, non_filterable: tuple[str, ...] = ("content", "entry")
    ) -> None:
        if not 1 <= dimension <= MAX_DIMENSION:
            raise ValueError(f"dimension must be 1..{MAX_DIMENSION}")
        self._indexes[(bucket, index)] = Index(dimension, non_filterable)

    def fail_next(self, times: int, status: int = 503, code: str = "ServiceUnavailableException") -> None:
        self._failures += [ServiceError(status, code, "injected by the stand-in")] * times

    def attach(self, client: Any) -> Any:
        client.meta.events.register("before-send.s3vectors", self._send)
        return client

    def client(self, region: str = "us-east-1") -> Any:
        """A botocore ``s3vectors`` client answered by this stand-in (no retries: a test sees each error)."""
        import botocore.session
        from botocore.config import Config

        session = botocore.session.get_session()
        config = Config(retries={"total_max_attempts": 1, "mode": "standard"})
        made = session.create_client(
            "s3vectors", region_name=region, aws_access_key_id="x", aws_secret_access_key="x", config=config
        )
        return self.attach(made)

    # ------------------------------------------------------------------------------------------ transport
    def _send(self, request: Any, **_: Any) -> AWSResponse:
        operation = request.url.rsplit("/", 1)[-1].split("?")[0]
        raw = request.body or b"{}"
        body = json.loads(raw if isinstance(raw, bytes | str) else raw.read())
        with self._lock:
            self.requests.append((operation, body))
            try:
                if len(raw) > PAYLOAD_BYTES:
                    raise _invalid("the request payload is larger than 20 MiB")
                if self._failures:
                    raise self._failures.pop(0)
                handler = {
                    "PutVectors": self._put_vectors,
                    "DeleteVectors": self._delete_vectors,
                    "GetVectors": self._get_vectors,
                    "ListVectors": self._list_vectors,
                    "QueryVectors": self._query_vectors,
                }.get(operation)
                if handler is None:
                    raise _invalid(f"{operation} is not answered by the stand-in")
                answer = handler(self._index(body), body)
                status, headers, payload = 200, {}, answer
            except ServiceError as exc:
                status, headers = exc.status, {"x-amzn-ErrorType": exc.code}
                payload = {"message": exc.message}
        headers["Content-Type"] = "application/json"
        http_headers = HTTPHeaders()
        for name, value in headers.items():
            http_headers[name] = value
        return AWSResponse(request.url, status, http_headers, _Raw(json.dumps(payload).encode()))

    def _index(self, body: dict[str, Any]) -> Index:
        found = self._indexes.get((body.get("vectorBucketName", ""), body.get("indexName", "")))
        if found is None:
            raise ServiceError(404, "NotFoundException", "the specified vector index does not exist")
        return found

    # ------------------------------------------------------------------------------------------ writes
    def _write(self, index: Index, key: str, vector: Vector | None) -> None:
        if vector is None:
            index.vectors.pop(key, None)
        else:
            index.vectors[key] = vector
        index.pending.append((self._clock(), key, vector))
        self._catch_up(index)

    def _catch_up(self, index: Index) -> None:
        now = self._clock()
        while index.pending and index.pending[0][0] + self._lag <= now:
            _, key, vector = index.pending.pop(0)
            if vector is None:
                index.searched.pop(key, None)
            else:
                index.searched[key] = vector

    def _put_vectors(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        vectors = body.get("vectors") or []
        if not 1 <= len(vectors) <= MAX_PUT:
            raise _invalid(f"a PutVectors call takes 1 to {MAX_PUT} vectors")
        checked = [(item["key"], self._checked(index, item)) for item in vectors]
        for key, vector in checked:
            self._write(index, key, vector)
        return {}

    def _checked(self, index: Index, item: dict[str, Any]) -> Vector:
        if not 1 <= len(item.get("key", "")) <= 1024:
            raise _invalid("a vector key has 1 to 1024 characters")
        data = np.asarray(item.get("data", {}).get("float32", []), dtype=np.float32)
        if data.shape != (index.dimension,):
            raise _invalid(f"vector {item['key']!r} has dimension {data.size}, the index {index.dimension}")
        if not np.all(np.isfinite(data)):
            raise _invalid("vector values must be finite")
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, dict) or len(metadata) > METADATA_KEYS:
            raise _invalid(f"metadata is an object of at most {METADATA_KEYS} keys")
        searchable = {k: v for k, v in metadata.items() if k not in index.non_filterable}
        for key, value in searchable.items():
            items = value if isinstance(value, list) else [value]
            if not all(isinstance(v, str | bool | int | float) for v in items):
                raise _invalid(f"filterable metadata {key!r} must be a string, number, boolean or list of them")
        if _size(searchable) > FILTERABLE_BYTES:
            raise _invalid(f"filterable metadata is larger than {FILTERABLE_BYTES} bytes")
        if _size(metadata) > METADATA_BYTES:
            raise _invalid(f"metadata is larger than {METADATA_BYTES} bytes")
        return Vector(data, metadata)

    def _delete_vectors(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        keys = body.get("keys") or []
        if not 1 <= len(keys) <= MAX_DELETE:
            raise _invalid(f"a DeleteVectors call takes 1 to {MAX_DELETE} keys")
        for key in keys:
            self._write(index, key, None)
        return {}

    # ------------------------------------------------------------------------------------------ reads
    @staticmethod
    def _shown(key: str, vector: Vector, body: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"key": key}
        if body.get("returnData"):
            out["data"] = {"float32": [float(x) for x in vector.data]}
        if body.get("returnMetadata"):
            out["metadata"] = vector.metadata
        return out

    def _get_vectors(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        keys = body.get("keys") or []
        if not 1 <= len(keys) <= MAX_GET:
            raise _invalid(f"a GetVectors call takes 1 to {MAX_GET} keys")
        found = [(k, index.vectors[k]) for k in dict.fromkeys(keys) if k in index.vectors]
        return {"vectors": [self._shown(k, v, body) for k, v in found]}

    def _list_vectors(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        size = body.get("maxResults", MAX_LIST)
        count, segment = body.get("segmentCount"), body.get("segmentIndex")
        if not 1 <= size <= MAX_LIST:
            raise _invalid(f"maxResults is 1 to {MAX_LIST}")
        paired = (count is None and segment is None) or (
            count is not None and segment is not None and 0 <= segment < count <= MAX_SEGMENTS
        )
        if not paired:
            raise _invalid(f"segmentCount (1-{MAX_SEGMENTS}) and a segmentIndex below it go together")

        def place(key: str) -> str:  # a listing's order is the service's, not the keys'
            return hashlib.sha256(key.encode()).hexdigest()

        keys = sorted(index.vectors, key=place)
        if count is not None:
            keys = [k for k in keys if int(place(k)[:8], 16) % count == segment]
        after = base64.urlsafe_b64decode(body["nextToken"]).decode() if body.get("nextToken") else ""
        keys = [k for k in keys if place(k) > after]
        page = keys[:size]
        out: dict[str, Any] = {"vectors": [self._shown(k, index.vectors[k], body) for k in page]}
        if len(keys) > size:
            out["nextToken"] = base64.urlsafe_b64encode(place(page[-1]).encode()).decode()
        return out

    def _query_vectors(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        top_k = body.get("topK", 0)
        if not 1 <= top_k <= MAX_TOP_K:
            raise _invalid(f"topK must be between 1 and {MAX_TOP_K}")
        if body.get("queryTexts"):
            raise _invalid("full-text queries need searchable metadata keys; this index declares none")
        query = np.asarray(body.get("queryVector", {}).get("float32", []), dtype=np.float32)
        if query.shape != (index.dimension,):
            raise _invalid(f"the query vector has dimension {query.size}, the index {index.dimension}")
        flt = body.get("filter")
        if flt is not None:
            try:
                validate(flt, index.non_filterable)
            except FilterError as exc:
                raise _invalid(f"invalid filter: {exc}") from exc
        self._catch_up(index)
        keys = [k for k, v in index.searched.items() if flt is None or matches(flt, v.metadata)]
        if not keys:
            return {"vectors": [], "distanceMetric": "cosine"}
        matrix = np.stack([index.searched[k].data for k in keys])
        norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-30)
        distances = 1.0 - (matrix @ query) / np.maximum(norms, 1e-30)
        order = sorted(range(len(keys)), key=lambda i: (float(distances[i]), keys[i]))[:top_k]
        shown = []
        for i in order:
            item = self._shown(keys[i], index.searched[keys[i]], {"returnMetadata": body.get("returnMetadata")})
            if body.get("returnDistance"):
                item["distance"] = float(np.float32(distances[i]))
            shown.append(item)
        return {"vectors": shown, "distanceMetric": "cosine"}
