"""Fixtures of the memory-store tests: an osmem-server process, the three MemoryStore implementations.

osmem-server answers mappings, bulk, term/terms/bool/range/exists queries for real but rejects every
k-NN query. :class:`KnnEmulatingStore` therefore sends the adapter's own knn *filter* to osmem as a plain
query (so the filter is evaluated for real), computes the exact inner products itself and answers with a
real-shaped k-NN response whose ``_score`` follows faiss ``innerproduct`` scoring; the adapter parses it.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
from opensearchpy import OpenSearch
from osmem_server import OsmemServer

from mneme.adapters.opensearch.http import SignedOpenSearch
from mneme.adapters.opensearch.store import OpenSearchMemoryStore
from mneme.adapters.s3vectors.store import S3VectorsMemoryStore
from mneme.models.memory import MemoryDocument
from mneme_local.s3vectors_stand_in import S3VectorsStandIn
from mneme_local.vector_store import EmbeddedVectorStore
from tests.fakes.memory_store import InMemoryMemoryStore

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

NOW = datetime(2026, 11, 30, 9, 5, tzinfo=UTC)
DIMENSION = 8
_counter = itertools.count()


def faiss_ip_score(ip: float) -> float:
    """OpenSearch's score for faiss innerproduct (d = -ip): 1/(1+d) if d >= 0, else 1-d."""
    distance = -ip
    return 1.0 / (1.0 + distance) if distance >= 0 else 1.0 - distance


class KnnEmulatingStore(OpenSearchMemoryStore):
    """The real adapter; only the k-NN request is answered by exact search over osmem's filter result."""

    def __init__(self, client: SignedOpenSearch, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        self.client = client
        self.knn_bodies: list[dict[str, Any]] = []

    def _knn_search(self, body: dict[str, Any]) -> dict[str, Any]:
        self.knn_bodies.append(body)
        knn = body["query"]["knn"]["embedding"]
        plain = {"size": 10_000, "query": {"bool": {"filter": [knn["filter"]]}}}
        hits = self.client.search(index=self._index, body=plain)["hits"]["hits"]
        scored = []
        for hit in hits:
            source = dict(hit["_source"])
            ip = math.fsum(a * b for a, b in zip(knn["vector"], source.pop("embedding"), strict=True))
            scored.append({"_index": self._index, "_id": hit["_id"], "_score": faiss_ip_score(ip), "_source": source})
        scored.sort(key=lambda h: -h["_score"])
        top = scored[: min(knn["k"], body["size"])]
        return {
            "took": 1,
            "timed_out": False,
            "hits": {"total": {"value": len(top), "relation": "eq"}, "hits": top},
        }


@pytest.fixture(scope="session")
def osmem() -> Iterator[OsmemServer]:
    """One osmem-server for the session, on a free loopback port."""
    server = OsmemServer.start(addr="127.0.0.1:0", japanese=False)
    yield server
    server.close()


@pytest.fixture
def os_client(osmem: OsmemServer) -> SignedOpenSearch:
    """mneme's own client (unsigned: osmem takes no SigV4), as the stores under test use it."""
    return SignedOpenSearch(osmem.url, timeout=30)


@pytest.fixture
def os_admin(osmem: OsmemServer) -> OpenSearch:
    """opensearch-py, for what the tests inspect beyond the store's calls (counts, mappings, raw documents)."""
    return OpenSearch(hosts=[osmem.url], timeout=30)


@pytest.fixture
def index_name() -> str:
    return f"mem-{next(_counter)}"


#: every MemoryStore the contract suites run against (the OpenSearch ones need the osmem-server fixture; the
#: S3 Vectors adapter runs on the in-process stand-in, through a real botocore client)
KINDS = ["fake", "embedded", "opensearch-es", "opensearch-aoss", "s3vectors"]


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, index_name: str) -> Any:
    """A fresh store of each kind, 8-dimensional (a test module may define its own ``store``)."""
    client = request.getfixturevalue("os_client") if request.param.startswith("opensearch") else None
    return make_store(request.param, tmp_path, client, index_name, 8)


def make_store(kind: str, tmp_path: Path, client: SignedOpenSearch | None, index: str, dimension: int) -> Any:
    if kind == "fake":
        return InMemoryMemoryStore()
    if kind == "embedded":
        return EmbeddedVectorStore(tmp_path / "memory.sqlite3")
    if kind == "s3vectors":
        return s3vectors_store(S3VectorsStandIn(), index, dimension)
    assert client is not None
    service = "aoss" if kind == "opensearch-aoss" else "es"
    return KnnEmulatingStore(client, index=index, dimension=dimension, service=service)


def s3vectors_store(stand_in: S3VectorsStandIn, index: str, dimension: int, **options: Any) -> S3VectorsMemoryStore:
    """The S3 Vectors adapter on a fresh index of the stand-in (the template's bucket and non-filterable keys)."""
    stand_in.create_index("mneme-vectors", index, dimension)
    return S3VectorsMemoryStore(stand_in.client(), bucket="mneme-vectors", index=index, dimension=dimension, **options)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "keyword_leg: needs the store's keyword search (keyword_search_available)")


@pytest.fixture(autouse=True)
def _keyword_leg(request: pytest.FixtureRequest) -> None:
    """A test marked ``keyword_leg`` does not apply to a store without keyword search (its capability flag)."""
    if request.node.get_closest_marker("keyword_leg") is None or "store" not in request.fixturenames:
        return
    store = request.getfixturevalue("store")
    if not getattr(store, "keyword_search_available", True):
        pytest.skip(f"not applicable: {type(store).__name__} has no keyword search (vector-only hybrid)")


def doc(
    content: str,
    namespace: str = "vector.user.alice.memory",
    *,
    doc_id: str | None = None,
    at: datetime = NOW,
    **fields: Any,
) -> MemoryDocument:
    owner = namespace.split(".")[2] if namespace.split(".")[1] in ("agent", "user") else ""
    return MemoryDocument(
        id=doc_id or f"m-{next(_counter)}",
        namespace=namespace,
        owner_user_id=owner,
        content=content,
        content_hash=hashlib.sha256(content.encode()).hexdigest(),
        created_at=at,
        updated_at=at,
        **fields,
    )


def unit(*values: float, dimension: int = DIMENSION) -> list[float]:
    """A normalized vector from its first components."""
    padded = [*values, *([0.0] * (dimension - len(values)))]
    norm = math.sqrt(sum(v * v for v in padded))
    return [v / norm for v in padded]


def later(**delta: float) -> datetime:
    return NOW + timedelta(**delta)


def ids_of(candidates: Sequence[Any]) -> list[str]:
    return [c.document.id for c in candidates]
