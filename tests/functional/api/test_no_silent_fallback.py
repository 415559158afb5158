"""No silent fallback (issue 33.2): an openai-compatible agent without a base URL (its endpoint, or the
deployment's default) is refused at save with a 400 naming ``model.endpoint``; one saved while the default
existed fails its run with that reason — never answered by the offline model, as local mode still answers a
Bedrock agent without Bedrock."""

from __future__ import annotations

from typing import Any

from mneme.adapters.models.offline import OfflineModel
from mneme.adapters.models.openai import StaticKey
from mneme.adapters.models.registry import ModelClients, OpenAIClients
from mneme.records import replace
from mneme.settings import Settings
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world

GPT: dict[str, Any] = {"label": "GPT", "model": {"provider": "openai-compatible", "model_id": "gpt-4o"}}
BASE_URL = "https://models.example.com/v1"  # never called: the runs below fail before any model call


def _local_models(world: World, settings: Settings) -> None:
    """The models as local mode composes them: offline fallback on (mneme_local.compose)."""
    openai = OpenAIClients(settings.openai_base_url_for, lambda _arn: StaticKey(None))
    world.deps.models = ModelClients(None, openai=openai, offline_fallback=True)


def test_an_openai_compatible_agent_without_a_base_url_is_refused_at_save(api: Api) -> None:
    reply = api.put("/v1/agents/gpt", GPT)
    assert reply.status == 400
    assert reply.body["field"] == "model.endpoint"
    assert "MNEME_OPENAI_BASE_URL" in reply.body["message"]
    assert api.get("/v1/agents/gpt").status == 404


def test_it_is_saved_when_the_deployment_has_a_default_base_url() -> None:
    api = Api(make_world(OfflineModel(), MNEME_OPENAI_BASE_URL=BASE_URL))
    assert api.put("/v1/agents/gpt", GPT).status == 200


def test_a_run_whose_default_base_url_vanished_fails_saying_why() -> None:
    # Given an agent saved while the deployment had a default base URL
    world = make_world(OfflineModel(), MNEME_OPENAI_BASE_URL=BASE_URL)
    api = Api(world)
    assert api.put("/v1/agents/gpt", GPT).status == 200
    # When the default is gone (a restart without it) and alice runs the agent
    settings = world.deps.settings.model_copy(update={"openai_base_url": ""})
    world.deps = replace(world.deps, settings=settings)
    api = Api(world)
    _local_models(world, settings)
    reply = api.post("/v1/runs", {"agent_id": "gpt", "input": "hello"})
    # Then the run is not answered by the offline model: it fails, naming the missing base URL
    assert (reply.status, reply.body["status"], reply.body["output"]) == (200, "failed", None)
    assert reply.body["error"].startswith("ModelUnavailable: the openai-compatible model 'gpt-4o' has no base URL")
    assert "MNEME_OPENAI_BASE_URL" in reply.body["error"]


def test_a_bedrock_agent_without_bedrock_is_still_answered_offline_locally(api: Api, world: World) -> None:
    _local_models(world, world.deps.settings)
    assert api.put("/v1/agents/claude", {"label": "Claude"}).status == 200
    reply = api.post("/v1/runs", {"agent_id": "claude", "input": "hello"})
    assert (reply.status, reply.body["output"]) == (200, "offline: hello")
