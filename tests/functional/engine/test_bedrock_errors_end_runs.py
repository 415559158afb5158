"""How each error Bedrock answers ends a run (a real bedrock-runtime client, the error answered on the wire):
throttling is handed to the state machine (fast path) or raised for its Retry (a step); Bedrock's own model
timeout is handed to the state machine, whose step fails the run; every other error fails the run with the
error's name in its reason — never an internal error, never a run left running."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse

from mneme.adapters.models.bedrock import BedrockModel, bedrock_client_config
from mneme.engine.runs.service import step
from mneme.errors import ModelThrottled
from mneme.models.run import RunStatus
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world
from tests.support.raw_body import RawBody


def _world(code: str, status: int, message: str) -> World:
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=bedrock_client_config(1))

    def answer(request: Any, **_: Any) -> Any:
        headers: Any = {"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/", "Content-Type": "application/json"}
        return AWSResponse(request.url, status, headers, RawBody(json.dumps({"message": message}).encode()))

    client.meta.events.register("before-send.bedrock-runtime.Converse", answer)
    world = make_world(BedrockModel(client))
    add_agent(world, "master", model={"provider": "bedrock", "model_id": "anthropic.claude-sonnet-4-5"})
    return world


@pytest.mark.parametrize(
    ("code", "status", "message"),
    [
        ("ValidationException", 400, "Input is too long for requested model."),
        ("AccessDeniedException", 403, "You don't have access to the model with the specified model ID."),
        ("ResourceNotFoundException", 404, "Model not found."),
        ("ServiceUnavailableException", 503, "Bedrock is unable to process your request."),
        ("ModelErrorException", 424, "The model returned an error."),
        ("InternalServerException", 500, "An internal server error occurred."),
    ],
)
def test_a_bedrock_error_fails_the_run_with_its_name(code: str, status: int, message: str) -> None:
    world = _world(code, status, message)
    result = run(world, "hello there")
    stored = world.deps.runs.get_run(result.run.run_id)
    assert stored is not None and stored.status is RunStatus.FAILED and result.outcome == "done"
    assert stored.error is not None and code in stored.error and "internal error" not in stored.error


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("ThrottlingException", "Too many requests, please wait before trying again."),
        ("ModelNotReadyException", "Model is not ready to serve inference requests."),  # AWS: retry it
    ],
)
def test_throttling_hands_the_run_to_the_state_machine_whose_step_raises_it_for_retry(code: str, message: str) -> None:
    world = _world(code, 429, message)
    result = run(world, "hello there")
    assert result.outcome == "continue" and result.run.status is RunStatus.RUNNING
    with pytest.raises(ModelThrottled):
        step(world.deps, result.run.run_id)
    stored = world.deps.runs.get_run(result.run.run_id)
    assert stored is not None and stored.status is RunStatus.RUNNING  # the state machine's Retry runs it again


def test_a_model_timeout_hands_the_run_off_once_then_its_step_fails_it_with_the_name() -> None:
    world = _world("ModelTimeoutException", 408, "Model has timed out in processing the request.")
    result = run(world, "hello there")
    assert result.outcome == "continue" and result.run.status is RunStatus.RUNNING
    done = step(world.deps, result.run.run_id)
    stored = world.deps.runs.get_run(result.run.run_id)
    assert done.outcome == "done" and stored is not None and stored.status is RunStatus.FAILED
    assert stored.error is not None and "ModelTimeoutException" in stored.error


def test_a_runs_reason_names_what_aws_refused_but_not_the_account_or_the_role() -> None:
    denied = (
        "User: arn:aws:sts::123456789012:assumed-role/mneme-RunFunctionRole-1A2B3C/mneme-RunFunction is not"
        " authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1::foundation-model/x"
    )
    world = _world("AccessDeniedException", 403, denied)
    result = run(world, "hello there")
    stored = world.deps.runs.get_run(result.run.run_id)
    assert stored is not None and stored.error is not None and "bedrock:InvokeModel" in stored.error
    assert "123456789012" not in stored.error and "mneme-RunFunctionRole" not in stored.error
