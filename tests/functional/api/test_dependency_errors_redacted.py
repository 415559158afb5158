"""A dependency's error reaches users (a 503's message, a run's reason) without what AWS says of the deployment
itself: an access denied names the account and the function's role ("User: arn:aws:sts::<account>:assumed-role/
<role>/<session> is not authorized ..."), which no user of the API is to learn."""

from __future__ import annotations

import json
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse

from mneme.adapters.models.bedrock import bedrock_client_config
from mneme.adapters.models.bedrock_embeddings import BedrockEmbedder
from tests.functional.api.conftest import Api
from tests.support.deps import World
from tests.support.raw_body import RawBody

ACCOUNT, ROLE = "123456789012", "mneme-RunFunctionRole-1A2B3C"
DENIED = (
    f"User: arn:aws:sts::{ACCOUNT}:assumed-role/{ROLE}/mneme-RunFunction-x is not authorized to perform:"
    " bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0"
)


def _denied_embeddings() -> BedrockEmbedder:
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(1))

    def answer(request: Any, **_: Any) -> Any:
        headers: Any = {
            "x-amzn-ErrorType": "AccessDeniedException:http://internal.amazon.com/",
            "Content-Type": "application/json",
        }
        return AWSResponse(request.url, 403, headers, RawBody(json.dumps({"message": DENIED}).encode()))

    client.meta.events.register("before-send.bedrock-runtime.InvokeModel", answer)
    return BedrockEmbedder(client)


def test_a_search_whose_embeddings_are_denied_answers_503_without_the_account_or_the_role(
    api: Api, world: World
) -> None:
    object.__setattr__(world.deps, "embedder", _denied_embeddings())
    reply = api.post("/v1/memory/search", {"query": "where does alice live"})
    assert reply.status == 503 and "AccessDeniedException" in reply.body["message"]
    assert ACCOUNT not in reply.text and ROLE not in reply.text
    assert "bedrock:InvokeModel" in reply.body["message"]  # what was refused is still said
