"""The memory backend is chosen by settings (issue 32): ``MNEME_MEMORY_BACKEND`` = opensearch | s3vectors, the
S3 Vectors bucket and index named by ``MNEME_S3VECTORS_BUCKET`` / ``MNEME_S3VECTORS_INDEX`` (the template's)."""

from __future__ import annotations

import pytest

from mneme import composition
from mneme.adapters.opensearch.store import OpenSearchMemoryStore
from mneme.adapters.s3vectors.store import S3VectorsMemoryStore
from mneme.engine.memory_io.revisions import RevisionedMemoryStore
from mneme.settings import Settings

BASE = {"MNEME_TABLE": "main", "MNEME_AUDIT_TABLE": "audit", "AWS_REGION": "us-east-1"}
S3VECTORS = {"MNEME_MEMORY_BACKEND": "s3vectors", "MNEME_S3VECTORS_BUCKET": "vectors", "MNEME_S3VECTORS_INDEX": "mem"}


@pytest.fixture(autouse=True)
def _credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def test_s3vectors_needs_its_bucket_and_index() -> None:
    with pytest.raises(ValueError, match="MNEME_S3VECTORS_BUCKET and MNEME_S3VECTORS_INDEX"):
        Settings.model_validate({"MNEME_MEMORY_BACKEND": "s3vectors", "MNEME_S3VECTORS_BUCKET": "vectors"})
    assert Settings.model_validate(S3VECTORS).memory_configured


@pytest.mark.parametrize("root", ["build_aws", "build_writer"])
def test_the_s3vectors_backend_builds_the_s3vectors_store_on_its_index(root: str) -> None:
    built = getattr(composition, root)(Settings.from_env(BASE | S3VECTORS))
    revisioned = built.memory if root == "build_aws" else built.store
    assert isinstance(revisioned, RevisionedMemoryStore)  # every change kept as a revision (issue 35.3)
    store = revisioned.inner
    assert isinstance(store, S3VectorsMemoryStore)
    assert store._target == {"vectorBucketName": "vectors", "indexName": "mem"}
    assert store._client.meta.service_model.service_name == "s3vectors"


@pytest.mark.parametrize("root", ["build_aws", "build_writer"])
def test_the_opensearch_backend_builds_the_opensearch_store(root: str) -> None:
    env = BASE | {"MNEME_OPENSEARCH_ENDPOINT": "https://search.example.com"}
    built = getattr(composition, root)(Settings.from_env(env))
    revisioned = built.memory if root == "build_aws" else built.store
    assert isinstance(revisioned, RevisionedMemoryStore) and isinstance(revisioned.inner, OpenSearchMemoryStore)


def test_without_a_store_the_deployment_runs_without_memory() -> None:
    assert composition.build_aws(Settings.from_env(BASE)).memory is None
