"""Memory: the write queue and its writer, and the OpenSearch Serverless collection with its policies."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.infra.backend_template import deployed
from tests.support.sam_template import load_template, resources

INDEX_PERMISSIONS = {
    "aoss:CreateIndex",
    "aoss:DescribeIndex",
    "aoss:ReadDocument",
    "aoss:WriteDocument",
    "aoss:UpdateIndex",
}


def _render(sub: Any, **values: str) -> Any:
    """Fill an ``Fn::Sub`` template string with sample values and parse the JSON policy it yields."""
    text = sub["Fn::Sub"] if isinstance(sub["Fn::Sub"], str) else sub["Fn::Sub"][0]
    return json.loads(re.sub(r"\$\{([^}]+)\}", lambda m: values[m.group(1)], text))


def test_the_writer_consumes_the_queue_in_batches_reporting_item_failures() -> None:
    writer = resources("AWS::Serverless::Function")["WriterFunction"]["Properties"]
    (event,) = writer["Events"].values()
    assert event["Type"] == "SQS"
    props = event["Properties"]
    assert props["Queue"] == {"Fn::GetAtt": ["MemoryQueue", "Arn"]}
    assert props["BatchSize"] == 10
    assert 0 < props["MaximumBatchingWindowInSeconds"] <= 300
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_the_queue_hides_a_message_for_at_least_six_writer_timeouts_then_dead_letters_it() -> None:
    queue = resources("AWS::SQS::Queue")["MemoryQueue"]["Properties"]
    writer_timeout = resources("AWS::Serverless::Function")["WriterFunction"]["Properties"]["Timeout"]
    assert queue["VisibilityTimeout"] >= 6 * writer_timeout
    assert queue["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": ["MemoryDLQ", "Arn"]}, "maxReceiveCount": 5}
    dlq = resources("AWS::SQS::Queue")["MemoryDLQ"]["Properties"]
    assert dlq["MessageRetentionPeriod"] > queue["MessageRetentionPeriod"]


def test_the_run_function_knows_the_queue_and_the_machine() -> None:
    env = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]
    assert env["MNEME_MEMORY_QUEUE_URL"] == {"Ref": "MemoryQueue"}
    assert "MNEME_STATE_MACHINE_ARN" in env


def test_a_vector_collection_is_created_only_without_an_existing_endpoint() -> None:
    # issue 32: and only for an OpenSearch memory backend (tests/infra/test_template_backends.py)
    assert deployed(CollectionName="c")["Conditions"]["CreateCollection"] is True
    existing = deployed(CollectionName="c", OpenSearchEndpoint="https://x.aoss.amazonaws.com")
    assert existing["Conditions"]["CreateCollection"] is False
    collection = resources("AWS::OpenSearchServerless::Collection")["MemoryCollection"]
    assert collection["Condition"] == "CreateCollection"
    assert collection["Properties"]["Type"] == "VECTORSEARCH"
    assert collection["Properties"]["StandbyReplicas"] == {"Ref": "StandbyReplicas"}
    assert set(collection["DependsOn"]) == {"MemoryEncryptionPolicy", "MemoryNetworkPolicy"}
    for name in ("MemoryEncryptionPolicy", "MemoryNetworkPolicy", "MemoryDataAccessPolicy"):
        assert resources()[name]["Condition"] == "CreateCollection", name


def test_the_collection_is_encrypted_with_an_aws_owned_key() -> None:
    policy = resources()["MemoryEncryptionPolicy"]["Properties"]
    assert policy["Type"] == "encryption"
    assert _render(policy["Policy"], CollectionName="c") == {
        "Rules": [{"ResourceType": "collection", "Resource": ["collection/c"]}],
        "AWSOwnedKey": True,
    }


def test_the_network_policy_is_public_or_one_vpc_endpoint() -> None:
    policy = resources()["MemoryNetworkPolicy"]["Properties"]
    assert policy["Type"] == "network"
    condition, public, private = policy["Policy"]["Fn::If"]
    assert condition == "PublicCollection"
    (public_rule,) = _render(public, CollectionName="c")
    assert public_rule["AllowFromPublic"] is True
    (private_rule,) = _render(private, CollectionName="c", OpenSearchVpcEndpointId="vpce-1")
    assert private_rule["AllowFromPublic"] is False
    assert private_rule["SourceVPCEs"] == ["vpce-1"]


def test_the_data_access_policy_grants_the_function_roles_the_index_permissions() -> None:
    policy = resources()["MemoryDataAccessPolicy"]["Properties"]
    assert policy["Type"] == "data"
    roles = {"RunRoleArn": "run", "WriterRoleArn": "writer", "PrivacyRoleArn": "privacy"}
    (rule,) = _render(policy["Policy"], CollectionName="c", **roles)
    assert rule["Principal"] == ["run", "writer", "privacy"]
    by_type = {r["ResourceType"]: r for r in rule["Rules"]}
    assert by_type["index"]["Resource"] == ["index/c/*"]
    assert set(by_type["index"]["Permission"]) == INDEX_PERMISSIONS
    assert by_type["collection"]["Resource"] == ["collection/c"]
    assert by_type["collection"]["Permission"] == ["aoss:DescribeCollectionItems"]


def test_policy_names_fit_the_32_character_limit() -> None:
    pattern = load_template()["Parameters"]["CollectionName"]["AllowedPattern"]
    assert pattern == "^[a-z][a-z0-9-]{2,26}$"  # 27 characters + "-data" = 32
    for name in ("MemoryEncryptionPolicy", "MemoryNetworkPolicy", "MemoryDataAccessPolicy"):
        suffix = resources()[name]["Properties"]["Name"]["Fn::Sub"].removeprefix("${CollectionName}")
        assert len(suffix) <= 5, name


def test_the_functions_get_the_endpoint_service_and_index() -> None:
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["MNEME_OPENSEARCH_ENDPOINT"] == {
        "Fn::If": [
            "CreateCollection",
            {"Fn::GetAtt": ["MemoryCollection", "CollectionEndpoint"]},
            {"Fn::If": ["ExistingEndpoint", {"Ref": "OpenSearchEndpoint"}, ""]},
        ]
    }
    assert env["MNEME_OPENSEARCH_SERVICE"] == {"Fn::If": ["CreateCollection", "aoss", {"Ref": "OpenSearchService"}]}
    assert env["MNEME_OPENSEARCH_INDEX"] == {"Ref": "OpenSearchIndex"}
    assert env["MNEME_EMBEDDING_MODEL_ID"] == {"Ref": "EmbeddingModelId"}


def test_the_memory_queues_take_the_largest_message_the_adapter_packs() -> None:
    from mneme.adapters.aws.sqs_queue import BATCH_BYTES

    queues = resources("AWS::SQS::Queue")
    assert queues["MemoryQueue"]["Properties"]["MaximumMessageSize"] == BATCH_BYTES == 1_048_576
    assert queues["MemoryDLQ"]["Properties"]["MaximumMessageSize"] == BATCH_BYTES
