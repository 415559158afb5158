"""The agent-run state machine: its template resource and its ASL agree, and the ASL follows AWS guidance."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from mneme.spec_limits import MAX_DELEGATION_DEPTH
from tests.support.sam_template import ROOT, resources, state_machine_definition

MACHINE = "AgentRunStateMachine"
LAMBDA_TRANSIENT = {
    "Lambda.ClientExecutionTimeoutException",
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
}


def _props() -> dict[str, Any]:
    props: dict[str, Any] = resources("AWS::Serverless::StateMachine")[MACHINE]["Properties"]
    return props


def _states(states: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every state, the states of Map iterators and Parallel branches included."""
    for name, state in states.items():
        yield name, state
        for inner in (state.get("Iterator"), state.get("ItemProcessor")):
            if inner:
                yield from _states(inner["States"])
        for branch in state.get("Branches", []):
            yield from _states(branch["States"])


def _all_states() -> dict[str, dict[str, Any]]:
    return dict(_states(state_machine_definition()["States"]))


def _lambda_tasks() -> list[str]:
    return sorted(
        name
        for name, state in _all_states().items()
        if state["Type"] == "Task" and str(state.get("Resource", "")).startswith("arn:aws:states:::lambda:invoke")
    )


def test_every_substitution_is_used_and_every_placeholder_is_substituted() -> None:
    # Given the ASL text and the template's DefinitionSubstitutions
    text = (ROOT / _props()["DefinitionUri"]).read_text()
    placeholders = set(re.findall(r"\$\{([^}]+)\}", text))
    keys = set(_props()["DefinitionSubstitutions"])
    # Then both sets are the same
    assert placeholders == keys
    assert _props()["DefinitionSubstitutions"]["RunFunctionArn"] == {"Fn::GetAtt": ["RunFunction", "Arn"]}


def test_the_machine_is_a_standard_workflow_with_a_fixed_name_logging_and_tracing() -> None:
    props = _props()
    assert props["Type"] == "STANDARD"  # .sync:2 and .waitForTaskToken need Standard
    assert props["Name"] == {"Fn::Sub": "${AWS::StackName}-agent-run"}
    assert props["Tracing"] == {"Enabled": True}
    assert props["Logging"]["Destinations"][0]["CloudWatchLogsLogGroup"]["LogGroupArn"]
    log_group = resources("AWS::Logs::LogGroup")["StateMachineLogs"]["Properties"]
    assert log_group["LogGroupName"]["Fn::Sub"].startswith("/aws/vendedlogs/states/")


def test_the_depth_guard_stops_at_the_package_limit_before_any_child_starts() -> None:
    choices = _all_states()["Route"]["Choices"]
    starts = [i for i, c in enumerate(choices) if c.get("Next") in ("Delegate", "DelegateOne")]
    guard_at = next(i for i, c in enumerate(choices) if c.get("Next") == "RefuseDelegation")
    # the guard is checked first: at the limit a delegation is refused, never started
    assert len(starts) == 2 and guard_at < min(starts)
    assert choices[guard_at]["And"] == [
        {"Variable": "$.outcome", "StringEquals": "delegate"},
        {"Variable": "$.depth", "NumericGreaterThanEquals": MAX_DELEGATION_DEPTH},
    ]


def test_exactly_one_child_is_started_directly_and_more_go_through_the_map() -> None:
    choices = _all_states()["Route"]["Choices"]
    one_at = next(i for i, c in enumerate(choices) if c.get("Next") == "DelegateOne")
    map_at = next(i for i, c in enumerate(choices) if c.get("Next") == "Delegate")
    assert one_at < map_at
    assert choices[one_at]["And"] == [
        {"Variable": "$.outcome", "StringEquals": "delegate"},
        {"Variable": "$.child_run_id", "IsString": True},  # the step names the only child (null for two or more)
    ]
    assert choices[map_at] == {"Variable": "$.outcome", "StringEquals": "delegate", "Next": "Delegate"}
    assert _all_states()["Step"]["ResultSelector"]["child_run_id.$"] == "$.Payload.child_run_id"
    assert _all_states()["DelegateOne"]["Parameters"]["Input"]["run_id.$"] == "$.child_run_id"


def _children() -> list[dict[str, Any]]:
    return [s for _, s in _all_states().items() if s.get("Resource", "").startswith("arn:aws:states:::states:")]


def test_the_two_ways_of_starting_a_child_differ_only_in_where_the_child_id_comes_from() -> None:
    one, in_map = sorted(_children(), key=lambda s: "End" in s)
    assert one["Retry"] == in_map["Retry"]
    assert one["Parameters"]["Input"] == in_map["Parameters"]["Input"]  # both read the child from $.child_run_id
    assert {k: v for k, v in one["Parameters"].items() if k != "Input"} == {
        k: v for k, v in in_map["Parameters"].items() if k != "Input"
    }


@pytest.mark.parametrize("index", [0, 1])
def test_children_are_nested_executions_of_this_same_machine(index: int) -> None:
    child = _children()[index]
    assert child["Resource"] == "arn:aws:states:::states:startExecution.sync:2"
    params = child["Parameters"]
    assert params["StateMachineArn.$"] == "$$.StateMachine.Id"  # no circular reference in the template
    assert params["Name.$"] == "States.UUID()"
    assert params["Input"]["AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$"] == "$$.Execution.Id"
    assert params["Input"]["depth.$"] == "States.MathAdd($.depth, 1)"


def test_the_approval_waits_for_a_task_token() -> None:
    approval = _all_states()["AwaitApproval"]
    assert approval["Resource"] == "arn:aws:states:::lambda:invoke.waitForTaskToken"
    assert approval["Parameters"]["Payload"]["task_token.$"] == "$$.Task.Token"
    assert approval["Parameters"]["FunctionName"] == "${RunFunctionArn}"


# AWS guidance (bp-lambda-serviceexception): every Lambda task retries the transient Lambda errors.
@pytest.mark.parametrize("task", _lambda_tasks())
def test_lambda_tasks_retry_the_transient_lambda_errors(task: str) -> None:
    state = _all_states()[task]
    retried = {error for retrier in state.get("Retry", []) for error in retrier["ErrorEquals"]}
    assert retried >= LAMBDA_TRANSIENT
    for retrier in state["Retry"]:
        if set(retrier["ErrorEquals"]) & LAMBDA_TRANSIENT:
            assert retrier.get("BackoffRate", 2.0) >= 2
            assert retrier.get("MaxAttempts", 3) >= 3
            assert "States.ALL" not in retrier["ErrorEquals"]  # never blanket-retry a model call


def test_the_step_task_is_the_one_run_function() -> None:
    tasks = _lambda_tasks()
    assert "Step" in tasks
    for name in tasks:
        assert _all_states()[name]["Parameters"]["FunctionName"] == "${RunFunctionArn}", name


def test_every_way_into_the_step_carries_the_outcome_it_follows() -> None:
    # The step reads "$.outcome" (a path that must exist on AWS, else States.Runtime fails the execution): a
    # child's input and the depth guard's Pass set it; the delegation states keep the step's "delegate"
    # (ResultPath null), which tells the next step its children's executions have all ended.
    states = _all_states()
    assert states["Step"]["Parameters"]["Payload"]["after.$"] == "$.outcome"
    for task in ("DelegateOne", "RunChild"):
        assert states[task]["Parameters"]["Input"]["outcome"] == "start"
    assert states["Delegate"]["ResultPath"] is None and states["DelegateOne"]["ResultPath"] is None
    assert states["DelegateOne"]["Catch"][0]["ResultPath"] != "$"
    assert states["RefuseDelegation"]["Parameters"]["outcome"] not in ("delegate", "start")


def _mneme_error_names() -> set[str]:
    from mneme import errors

    def below(cls: type[Exception]) -> set[type[Exception]]:
        found: set[type[Exception]] = {cls}
        for direct in cls.__subclasses__():
            found |= below(direct)
        return found

    return {cls.__name__ for cls in below(errors.MnemeError)}


def test_every_error_name_the_machine_retries_is_one_the_run_function_raises() -> None:
    # A name no exception has would never match: the error it meant goes to the Catch instead
    names = _mneme_error_names()
    for name, state in _all_states().items():
        for retrier in state.get("Retry", []):
            for error in retrier["ErrorEquals"]:
                if not error.startswith(("States.", "Lambda.", "StepFunctions.")):
                    assert error in names, (name, error)


@pytest.mark.parametrize("task", ["Step", "AwaitApproval", "MarkFailed"])
def test_run_function_tasks_retry_what_the_step_raises_for_the_state_machine_to_retry(task: str) -> None:
    # The step raises these for a retry (engine/runs/step_end.TRANSIENT, by class name); the wait and the
    # Catch's fail read and write the same store, idempotently
    from mneme.engine.runs.step_end import TRANSIENT

    retried = {error for retrier in _all_states()[task].get("Retry", []) for error in retrier["ErrorEquals"]}
    store = {"StoreUnavailable", "Throttled"}
    expected = {cls.__name__ for cls in TRANSIENT} if task == "Step" else store
    assert retried >= expected
