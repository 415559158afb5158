"""Bedrock's Rerank API as the Reranker port, against a real bedrock-agent-runtime client (Stubber), and its wiring."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from mneme.adapters.models.bedrock_rerank import MAX_SOURCES, MAX_TEXT_CHARS, BedrockReranker
from mneme.errors import RerankUnavailable
from mneme.ports.models import Reranker

ARN = "arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0"


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-agent-runtime", region_name="us-east-1")


def _reranker(client: Any) -> BedrockReranker:
    port: Reranker = BedrockReranker(client, model_id="amazon.rerank-v1:0", region="us-east-1")
    assert isinstance(port, BedrockReranker)
    return port


def _expected(query: str, texts: list[str]) -> dict[str, Any]:
    return {
        "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
        "sources": [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": text}}}
            for text in texts
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": {"numberOfResults": len(texts), "modelConfiguration": {"modelArn": ARN}},
        },
    }


def test_one_call_scores_every_text_and_the_scores_come_back_in_the_texts_order(client: Any) -> None:
    texts = ["Alice: hi!", "Alice: green tea, always.", "Bob: the kettle broke."]
    answer = {"results": [{"index": 1, "relevanceScore": 0.91}, {"index": 2, "relevanceScore": 0.2}]}
    with Stubber(client) as stub:
        stub.add_response("rerank", answer, _expected("which tea", texts))
        scores = _reranker(client).rerank("which tea", texts)
        stub.assert_no_pending_responses()
    assert scores == [0.0, 0.91, 0.2]  # a text the model left out scores 0


def test_texts_longer_than_the_apis_limit_are_clipped_not_refused(client: Any) -> None:
    long = "x" * (MAX_TEXT_CHARS + 10)
    with Stubber(client) as stub:
        stub.add_response("rerank", {"results": []}, _expected("q", ["x" * MAX_TEXT_CHARS]))
        assert _reranker(client).rerank("q", [long]) == [0.0]


@pytest.mark.parametrize("code", ["ThrottlingException", "AccessDeniedException", "ValidationException"])
def test_an_aws_error_is_a_rerank_unavailable_naming_its_code(client: Any, code: str) -> None:
    with Stubber(client) as stub:
        stub.add_client_error("rerank", service_error_code=code, http_status_code=400)
        with pytest.raises(RerankUnavailable, match=code):
            _reranker(client).rerank("q", ["a"])


def test_more_texts_than_the_api_takes_are_refused_before_any_call(client: Any) -> None:
    with Stubber(client) as stub, pytest.raises(RerankUnavailable, match=str(MAX_SOURCES)):
        _reranker(client).rerank("q", ["a"] * (MAX_SOURCES + 1))
        stub.assert_no_pending_responses()


def test_nothing_to_rank_makes_no_call(client: Any) -> None:
    with Stubber(client):
        assert _reranker(client).rerank("q", []) == []


def _deps(extra: dict[str, str]) -> Any:
    from moto import mock_aws

    from mneme.composition import build_aws
    from mneme.settings import Settings
    from tests.support.sam_template import create_tables

    env = {"MNEME_TABLE": "main", "MNEME_AUDIT_TABLE": "audit", "AWS_REGION": "us-east-1"}
    env |= {"MNEME_OPENSEARCH_ENDPOINT": "https://abc.us-east-1.aoss.amazonaws.com", "MNEME_OPENSEARCH_SERVICE": "aoss"}
    with mock_aws():
        create_tables(boto3.client("dynamodb", region_name="us-east-1"), {"MainTable": "main", "AuditTable": "audit"})
        return build_aws(Settings.from_env(env | extra), session=boto3.Session(region_name="us-east-1"))


def test_the_deployed_function_builds_the_reranker_its_environment_names() -> None:
    deps = _deps({"MNEME_MEMORY_RERANK_MODEL": "cohere.rerank-v3-5:0"})
    assert isinstance(deps.reranker, BedrockReranker)
    assert deps.reranker.model_id == "cohere.rerank-v3-5:0"


def test_without_a_rerank_model_there_is_no_reranker() -> None:
    assert _deps({}).reranker is None


def test_an_unknown_rerank_model_is_refused_at_start() -> None:
    from mneme.settings import Settings, SettingsError

    with pytest.raises((SettingsError, ValueError)):
        Settings.from_env({"MNEME_TABLE": "main", "MNEME_MEMORY_RERANK_MODEL": "my-reranker"})
