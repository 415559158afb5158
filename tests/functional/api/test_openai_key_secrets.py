"""Issue 31.1: an agent's ``model.api_key_secret_arn`` names only a secret of the deployment's allow list
(``OpenAIApiKeySecretArns``): any other secret the run role can read — another user's MCP credentials — is
refused at save (400 naming the field) and never fetched at run time (the composition's key lookup)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.models.offline import OfflineModel
from mneme.composition import _openai_clients
from mneme.errors import ModelRequestRejected
from mneme.models.agent import ModelSpec
from mneme.settings import Settings
from tests.functional.api.conftest import Api
from tests.support.deps import make_world
from tests.support.openai_stub import TEXT, StubServer, openai_stub

ALLOWED = "arn:aws:secretsmanager:us-east-1:123456789012:secret:mneme/openai-key-AbCdEf"
OTHERS = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stack/mcp/bob/github-QwErTy"
BASE_URL = "https://models.example.com/v1"  # an openai-compatible agent needs one to be saved (issue 33.2)


def _agent(secret: str) -> dict[str, Any]:
    model = {"provider": "openai-compatible", "model_id": "gpt-4o", "api_key_secret_arn": secret}
    return {"label": "GPT", "model": model}


def test_saving_an_agent_naming_a_secret_outside_the_allow_list_is_a_400_naming_the_field() -> None:
    api = Api(make_world(OfflineModel(), MNEME_OPENAI_API_KEY_SECRET_ARNS=ALLOWED, MNEME_OPENAI_BASE_URL=BASE_URL))
    reply = api.put("/v1/agents/gpt", _agent(OTHERS))
    assert (reply.status, reply.body["field"]) == (400, "model.api_key_secret_arn")
    assert api.get("/v1/agents/gpt").status == 404


def test_saving_an_agent_naming_an_allowed_secret_succeeds() -> None:
    secrets = f"{OTHERS}x,{ALLOWED}"
    api = Api(make_world(OfflineModel(), MNEME_OPENAI_API_KEY_SECRET_ARNS=secrets, MNEME_OPENAI_BASE_URL=BASE_URL))
    assert api.put("/v1/agents/gpt", _agent(ALLOWED)).status == 200


class _CountingSession:
    """A botocore-like session whose Secrets Manager client counts the secrets read."""

    def __init__(self) -> None:
        self.read: list[str] = []
        self._client = boto3.client("secretsmanager", region_name="us-east-1")

    def create_client(self, service: str, **_options: Any) -> Any:
        assert service == "secretsmanager"
        session = self

        class Client:
            def __getattr__(self, name: str) -> Any:
                return getattr(session._client, name)

            def get_secret_value(self, **kwargs: Any) -> Any:
                session.read.append(kwargs["SecretId"])
                return session._client.get_secret_value(**kwargs)

        return Client()


@pytest.fixture
def secrets() -> Iterator[tuple[_CountingSession, dict[str, str]]]:
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        arns = {
            name: client.create_secret(Name=name, SecretString=value)["ARN"]
            for name, value in (("mneme/openai-key", "sk-deployment"), ("stack/mcp/bob/github", "ghp-bobs-token"))
        }
        yield _CountingSession(), arns


def _clients(session: _CountingSession, stub: StubServer, allowed: str) -> Any:
    from mneme.adapters.models.registry import ModelClients

    settings = Settings(
        MNEME_OPENAI_BASE_URL=stub.base_url,
        MNEME_OPENAI_API_KEY_SECRET_ARNS=allowed,
        MNEME_MODEL_ALLOW_PRIVATE_NETWORKS=True,  # the stub listens on loopback
    )
    return ModelClients(None, openai=_openai_clients(settings, session, None))


def test_a_secret_outside_the_allow_list_is_never_fetched_nor_sent(secrets: Any) -> None:
    session, arns = secrets
    with openai_stub() as stub:
        models = _clients(session, stub, arns["mneme/openai-key"])
        spec = ModelSpec(
            provider="openai-compatible", model_id="gpt-4o", api_key_secret_arn=arns["stack/mcp/bob/github"]
        )
        with pytest.raises(ModelRequestRejected):
            models.client_for(spec).converse({"modelId": "gpt-4o", "messages": []})
        assert session.read == [] and stub.received == []


def test_an_allowed_secret_is_fetched_and_sent_as_the_bearer_key(secrets: Any) -> None:
    session, arns = secrets
    with openai_stub() as stub:
        stub.reply(TEXT)
        models = _clients(session, stub, arns["mneme/openai-key"])
        spec = ModelSpec(provider="openai-compatible", model_id="gpt-4o", api_key_secret_arn=arns["mneme/openai-key"])
        models.client_for(spec).converse(
            {"modelId": "gpt-4o", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
        )
        assert session.read == [arns["mneme/openai-key"]]
        assert [r.headers["authorization"] for r in stub.received] == ["Bearer sk-deployment"]
