"""Issue 31.8 where it is wired for openai-compatible agents: ``PUT /v1/agents/{id}`` refuses a base URL that
is not public https (unless the deployment allows private networks), and a run whose endpoint fails shows a
short status in its events and its error, never the endpoint's answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.openai import StaticKey
from mneme.adapters.models.registry import ModelClients, OpenAIClients
from tests.functional.api.conftest import Api
from tests.functional.api.run_support import events_of
from tests.support.deps import make_world
from tests.support.openai_stub import StubServer, openai_stub

AGENT: dict[str, Any] = {
    "label": "GPT",
    "model": {"provider": "openai-compatible", "model_id": "gpt-4o", "inference": {"max_tokens": 256}},
}
REFUSED = [
    "http://llm.example.com/v1",
    "https://127.0.0.1:11434/v1",
    "https://169.254.169.254/latest",
    "https://2852039166/v1",
    "https://127.1/v1",
    "https://[64:ff9b::a9fe:a9fe]/v1",
    "https://[::ffff:10.0.0.1]/v1",
    "https://localhost/v1",
]


def _api(base_url: str, **settings: Any) -> Api:
    return Api(make_world(OfflineModel(), MNEME_OPENAI_BASE_URL=base_url, **settings))


@pytest.mark.parametrize("base_url", REFUSED)
def test_an_agent_on_a_non_public_base_url_is_a_400_naming_the_field(base_url: str) -> None:
    reply = _api(base_url).put("/v1/agents/gpt", AGENT)
    assert reply.status == 400 and reply.body["field"] == "model.endpoint", reply.body
    assert "MNEME_MODEL_ALLOW_PRIVATE_NETWORKS" in reply.body["message"]


@pytest.mark.parametrize("base_url", REFUSED)
def test_where_private_networks_are_allowed_the_same_base_url_is_saved(base_url: str) -> None:
    api = _api(base_url, MNEME_MODEL_ALLOW_PRIVATE_NETWORKS="true")
    assert api.put("/v1/agents/gpt", AGENT).status == 200


def test_a_public_https_base_url_is_saved() -> None:
    assert _api("https://api.openai.com/v1").put("/v1/agents/gpt", AGENT).status == 200


def test_an_agents_own_endpoint_is_checked_like_the_default() -> None:
    api = _api("https://api.openai.com/v1", MNEME_OPENAI_ENDPOINTS="https://10.1.2.3/v1")
    model = {**AGENT["model"], "endpoint": "https://10.1.2.3/v1"}
    reply = api.put("/v1/agents/gpt", {**AGENT, "model": model})
    assert reply.status == 400 and reply.body["field"] == "model.endpoint"


def test_a_bedrock_agent_is_not_held_to_the_openai_base_url() -> None:
    agent = {**AGENT, "model": {"provider": "bedrock", "model_id": "anthropic.claude-3-haiku-20240307-v1:0"}}
    assert _api("http://127.0.0.1:11434/v1").put("/v1/agents/claude", agent).status == 200


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with openai_stub() as server:
        yield server


INTERNAL = "INTERNAL-ADMIN-PANEL db=10.0.0.7 password=hunter2"


@pytest.mark.parametrize("status", [400, 500])
def test_a_failing_endpoints_answer_never_reaches_the_runs_events(stub: StubServer, status: int) -> None:
    world = make_world(OfflineModel(), MNEME_OPENAI_BASE_URL=stub.base_url, MNEME_MODEL_ALLOW_PRIVATE_NETWORKS="true")
    clients = OpenAIClients(
        world.deps.settings.openai_base_url_for, lambda _: StaticKey(None), allow_private_networks=True
    )
    world.deps.models = ModelClients(None, openai=clients)
    api = Api(world)
    api.put("/v1/agents/gpt", AGENT)
    stub.reply(*[(status, {"error": {"message": INTERNAL, "type": "invalid_request_error"}})] * 4)
    run = api.post("/v1/runs", {"agent_id": "gpt", "input": "hi"}).body
    shown = json.dumps([run, api.get(f"/v1/runs/{run['run_id']}").body, events_of(api, run["run_id"])])
    assert f"{status} invalid_request_error" in shown
    assert "INTERNAL" not in shown and "hunter2" not in shown
