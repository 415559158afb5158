"""The time limits of template.yaml and of mneme fit together (issue 11.5): one budget, checked here."""

from __future__ import annotations

from typing import Any

from mneme.engine.runs.time_budget import step_model_window
from mneme.settings import Settings
from mneme.spec_limits import (
    API_ANSWER_SECONDS,
    API_INTEGRATION_TIMEOUT_SECONDS,
    HAND_OFF_RESERVE_SECONDS,
    RUN_FUNCTION_TIMEOUT_SECONDS,
    STEP_RESERVE_SECONDS,
    STEP_WORK_SECONDS,
)
from tests.support.sam_template import load_template


def _run_function() -> dict[str, Any]:
    props: dict[str, Any] = load_template()["Resources"]["RunFunction"]["Properties"]
    return props


def test_the_run_functions_timeout_is_the_one_the_budget_is_computed_for() -> None:
    props = _run_function()
    assert props["Timeout"] == RUN_FUNCTION_TIMEOUT_SECONDS
    assert float(props["Environment"]["Variables"]["MNEME_RUN_FUNCTION_TIMEOUT"]) == props["Timeout"]


def test_every_api_route_waits_the_integration_timeout_the_answer_fits_under() -> None:
    routes = [e["Properties"] for e in _run_function()["Events"].values() if e["Type"] == "HttpApi"]
    assert routes and {r["TimeoutInMillis"] for r in routes} == {int(API_INTEGRATION_TIMEOUT_SECONDS * 1000)}
    assert Settings().fast_path_budget_seconds + HAND_OFF_RESERVE_SECONDS <= API_ANSWER_SECONDS
    assert API_ANSWER_SECONDS < API_INTEGRATION_TIMEOUT_SECONDS


def test_a_steps_model_window_fits_the_function_timeout_with_its_work_and_reserve() -> None:
    window = step_model_window(Settings())
    assert window >= 60  # a long generation has a minute and a half
    assert STEP_WORK_SECONDS + window + STEP_RESERVE_SECONDS == _run_function()["Timeout"]


def test_the_sweeper_is_scheduled_with_a_name_derived_from_the_stack() -> None:
    sweep = _run_function()["Events"]["Sweep"]
    assert sweep["Type"] == "ScheduleV2"
    assert sweep["Properties"]["Input"] == '{"action": "sweep"}'
    assert sweep["Properties"]["OmitName"] is True and "Name" not in sweep["Properties"]
