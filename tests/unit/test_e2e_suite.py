"""The opt-in e2e suite (tests/e2e) imports and collects here, is skipped with one line saying what to set
when no stack is configured, and is never part of ``make test``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {
    "test_health_answers_without_a_token",
    "test_agents_and_tasks_are_stored",
    "test_a_fast_run_answers_with_its_output",
    "test_a_bedrock_run_answers_through_the_regions_inference_profile",
    "test_a_delegated_run_succeeds_through_the_state_machine",
    "test_memory_is_written_found_and_deleted",
    "test_an_approval_round_trip_resumes_the_run",
    "test_an_eventbridge_event_on_the_stacks_bus_starts_one_run",
    "test_a_long_poll_answers_at_the_next_event_of_a_delegated_tree",
    "test_the_websocket_api_refuses_a_connection_without_a_valid_token",
    "test_a_subscriber_receives_the_runs_events_as_they_are_committed_and_resumes_after_a_drop",
    "test_another_users_run_cannot_be_subscribed",
    "test_cancelling_a_delegating_root_cancels_its_tree",
    # issue 31's AWS review: what a first deploy must prove (tests/e2e/test_first_deploy.py)
    "test_a_runs_memory_write_goes_through_the_queue_and_the_writer",
    "test_a_step_functions_step_pushes_its_events_live",
    "test_export_then_erasure_of_a_throwaway_user_end_to_end",
    "test_two_real_users_see_nothing_of_each_other",
}


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_E2E_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "tests/e2e", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_suite_collects_every_scenario_marked_e2e() -> None:
    done = _pytest("--collect-only", "-q", "-m", "e2e")
    assert done.returncode == 0, done.stdout + done.stderr
    collected = {line.rsplit("::", 1)[-1] for line in done.stdout.splitlines() if "::" in line}
    assert collected == SCENARIOS


def test_unconfigured_every_test_is_skipped_with_one_line_saying_what_to_set() -> None:
    done = _pytest("-q", "-rs")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(SCENARIOS)} skipped" in done.stdout
    reasons = re.findall(r"SKIPPED \[\d+\] .*?: (.*)", done.stdout)
    assert reasons and set(reasons) == {
        "e2e: set MNEME_E2E_URL and MNEME_E2E_TOKEN, or run `make e2e STACK=<stack> [CREATE_USER=1]`"
    }


def test_make_test_never_runs_it() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "tests/e2e" not in options["testpaths"]
    assert any(marker.startswith("e2e:") for marker in options["markers"])
    makefile = (ROOT / "Makefile").read_text()
    assert "tests/e2e" in makefile.split("\ne2e:", 1)[1].split("\n\n", 1)[0]
