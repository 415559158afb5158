"""Issue 32: ``MemoryBackend`` picks where long-term memory lives. Each choice, on the translated template with
its Conditions evaluated, creates only its own resources and grants only its own least-privilege statements."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from tests.infra.backend_template import deployed, role_statements
from tests.support.sam_template import ROOT

BACKENDS = ["opensearch-classic", "opensearch-scale-to-zero", "s3vectors"]
COLLECTION_PARTS = {
    "AWS::OpenSearchServerless::Collection",
    "AWS::OpenSearchServerless::SecurityPolicy",
    "AWS::OpenSearchServerless::AccessPolicy",
}
MEMORY_TYPES = {
    "opensearch-classic": COLLECTION_PARTS,
    "opensearch-scale-to-zero": COLLECTION_PARTS | {"AWS::OpenSearchServerless::CollectionGroup"},
    "s3vectors": {"AWS::S3Vectors::VectorBucket", "AWS::S3Vectors::Index"},
}
INDEX = {"Ref": "MemoryVectorIndex"}
COLLECTION = {"Fn::GetAtt": ["MemoryCollection", "Arn"]}
VECTOR_ACTIONS = {
    "RunFunctionRole": {"QueryVectors", "GetVectors", "ListVectors", "PutVectors", "DeleteVectors"},
    "WriterFunctionRole": {"QueryVectors", "GetVectors", "PutVectors"},
    "PrivacyFunctionRole": {"QueryVectors", "GetVectors", "ListVectors", "DeleteVectors"},
}
ROLES = sorted(VECTOR_ACTIONS)


def _stack(backend: str, **overrides: Any) -> dict[str, Any]:
    return deployed(MemoryBackend=backend, CollectionName="mneme-dev", **overrides)


def _memory_types(stack: dict[str, Any]) -> set[str]:
    prefixes = ("AWS::OpenSearchServerless::", "AWS::S3Vectors::")
    return {r["Type"] for r in stack["Resources"].values() if r["Type"].startswith(prefixes)}


def _memory_statements(stack: dict[str, Any], role: str) -> dict[str, dict[str, Any]]:
    def touches_memory(statement: dict[str, Any]) -> bool:
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        return any(a.split(":")[0] in ("aoss", "es", "s3vectors") for a in actions)

    return {sid: s for sid, s in role_statements(stack, role).items() if touches_memory(s)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_creates_exactly_its_memory_resources(backend: str) -> None:
    assert _memory_types(_stack(backend)) == MEMORY_TYPES[backend]


@pytest.mark.parametrize("backend", ["opensearch-classic", "opensearch-scale-to-zero"])
@pytest.mark.parametrize("role", ROLES)
def test_an_opensearch_backend_grants_only_its_collection(backend: str, role: str) -> None:
    statements = _memory_statements(_stack(backend), role)
    assert statements == {
        "MemoryCollection": {
            "Sid": "MemoryCollection",
            "Effect": "Allow",
            "Action": "aoss:APIAccessAll",
            "Resource": COLLECTION,
        }
    }


@pytest.mark.parametrize("role", ROLES)
def test_s3vectors_grants_each_function_only_its_vector_actions_on_the_index(role: str) -> None:
    statements = _memory_statements(_stack("s3vectors"), role)
    assert set(statements) == {"MemoryVectorIndex"}
    statement = statements["MemoryVectorIndex"]
    assert statement["Resource"] == INDEX
    assert {a.removeprefix("s3vectors:") for a in statement["Action"]} == VECTOR_ACTIONS[role]
    assert all(a.startswith("s3vectors:") for a in statement["Action"])


@pytest.mark.parametrize("role", ROLES)
def test_s3vectors_ignores_an_existing_opensearch_endpoint(role: str) -> None:
    stack = _stack(
        "s3vectors",
        OpenSearchEndpoint="https://x.us-east-1.aoss.amazonaws.com",
        OpenSearchResourceArn="arn:aws:aoss:us-east-1:123456789012:collection/x",
    )
    assert set(_memory_statements(stack, role)) == {"MemoryVectorIndex"}
    env = stack["Resources"]["RunFunction"]["Properties"]["Environment"]["Variables"]
    assert env["MNEME_OPENSEARCH_ENDPOINT"] == ""


def test_scale_to_zero_puts_the_collection_in_a_nextgen_group_with_a_zero_floor() -> None:
    resources = _stack("opensearch-scale-to-zero")["Resources"]
    group = resources["MemoryCollectionGroup"]["Properties"]
    assert group["Generation"] == "NEXTGEN"
    assert group["CapacityLimits"]["MinIndexingCapacityInOcu"] == 0
    assert group["CapacityLimits"]["MinSearchCapacityInOcu"] == 0
    assert group["StandbyReplicas"] == {"Ref": "StandbyReplicas"}
    collection = resources["MemoryCollection"]["Properties"]
    assert collection["CollectionGroupName"] == {"Ref": "MemoryCollectionGroup"}
    assert collection["Type"] == "VECTORSEARCH"


def test_a_classic_collection_belongs_to_no_group() -> None:
    collection = _stack("opensearch-classic")["Resources"]["MemoryCollection"]["Properties"]
    assert "CollectionGroupName" not in collection


def test_the_vector_index_is_cosine_over_the_embedding_dimension_with_content_not_filterable() -> None:
    resources = _stack("s3vectors")["Resources"]
    index = resources["MemoryVectorIndex"]["Properties"]
    assert index["VectorBucketArn"] == {"Ref": "MemoryVectorBucket"}
    assert index["Dimension"] == {"Ref": "EmbeddingDimension"}
    assert index["DistanceMetric"] == "cosine"
    assert index["DataType"] == "float32"
    assert "content" in index["MetadataConfiguration"]["NonFilterableMetadataKeys"]
    bucket = resources["MemoryVectorBucket"]["Properties"]
    assert bucket["EncryptionConfiguration"] == {"SseType": "AES256"}


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ("opensearch-classic", {"MNEME_MEMORY_BACKEND": "opensearch", "MNEME_S3VECTORS_INDEX": ""}),
        ("opensearch-scale-to-zero", {"MNEME_MEMORY_BACKEND": "opensearch", "MNEME_S3VECTORS_INDEX": ""}),
        ("s3vectors", {"MNEME_MEMORY_BACKEND": "s3vectors", "MNEME_S3VECTORS_INDEX": "mneme-memory"}),
    ],
)
@pytest.mark.parametrize("function", ["RunFunction", "WriterFunction", "PrivacyFunction"])
def test_the_functions_are_told_the_backend(backend: str, expected: dict[str, str], function: str) -> None:
    resources = _stack(backend)["Resources"]
    env = resources[function]["Properties"]["Environment"]["Variables"]
    assert {k: env[k] for k in expected} == expected
    if backend == "s3vectors":
        assert resources["MemoryVectorIndex"]["Properties"]["IndexName"] == env["MNEME_S3VECTORS_INDEX"]
        bucket_name = {"Fn::Select": [1, {"Fn::Split": ["/", {"Ref": "MemoryVectorBucket"}]}]}
        assert env["MNEME_S3VECTORS_BUCKET"] == bucket_name
    else:
        assert env["MNEME_S3VECTORS_BUCKET"] == ""


def _overrides(env: str) -> dict[str, str]:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    pairs = config[env]["deploy"]["parameters"]["parameter_overrides"].split()
    return dict(p.split("=", 1) for p in pairs)


ENV_BACKENDS = [
    ("default", "opensearch-scale-to-zero"),
    ("dev", "opensearch-scale-to-zero"),
    ("prod", "opensearch-classic"),
]


@pytest.mark.parametrize(("env", "backend"), ENV_BACKENDS)
def test_samconfig_picks_scale_to_zero_for_dev_and_classic_for_prod(env: str, backend: str) -> None:
    assert _overrides(env)["MemoryBackend"] == backend


# the prices and the per-memory size docs/deploy.md "Cost per backend" states (USD, us-east-1, 730 h a month)
OCU_HOUR, AOSS_GB_MONTH, S3V_GB_MONTH, HOURS = 0.24, 0.024, 0.06, 730
MEMORY_KB = (1024 * 4 + 512 + 1024) / 1024


@pytest.mark.parametrize("memories", [10_000, 1_000_000, 10_000_000])
def test_the_cost_table_at_rest_follows_from_the_stated_prices(memories: int) -> None:
    doc = (ROOT / "docs" / "deploy.md").read_text().split("### Cost per backend", 1)[1].split("\n## ", 1)[0]
    gb = memories * MEMORY_KB / 1024 / 1024
    expected = {
        "`opensearch-classic` dev": OCU_HOUR * HOURS + gb * AOSS_GB_MONTH,
        "`opensearch-classic` prod": 2 * OCU_HOUR * HOURS + gb * AOSS_GB_MONTH,
        "`opensearch-scale-to-zero`": gb * AOSS_GB_MONTH,
        "`s3vectors`": gb * S3V_GB_MONTH,
    }
    rows = {line.split("|")[1].strip(): line for line in doc.splitlines() if line.startswith("| `")}
    for label, cost in expected.items():
        (row,) = [r for name, r in rows.items() if name.startswith(label)]
        assert f"${cost:,.2f}" in row, (label, memories, cost)
