"""Every log line of a step carries the run's ids; metrics are EMF; no message content at INFO."""

from __future__ import annotations

import io
import json

from mneme import observability
from tests.functional.engine.conftest import add_agent, run

SECRET = "my secret diary entry"


def test_the_step_log_line_carries_the_run_ids_and_no_content(world, monkeypatch) -> None:
    # Given the logger writing into a buffer
    stream = io.StringIO()
    monkeypatch.setattr(observability.logger().registered_handler, "stream", stream)
    add_agent(world)
    # When a run finishes
    result = run(world, SECRET)
    # Then its log line has run_id, root_run_id, depth and user_id, and not the user's text
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    step = next(line for line in lines if line["message"] == "run step")
    assert (step["run_id"], step["root_run_id"], step["depth"], step["user_id"]) == (
        result.run.run_id,
        result.run.run_id,
        0,
        "alice",
    )
    assert SECRET not in stream.getvalue()


def test_metrics_are_emitted_as_emf(world, monkeypatch, capsys) -> None:
    add_agent(world)
    run(world, "hello")
    metrics = observability.metrics()
    names = set(metrics.metric_set)
    metrics.clear_metrics()
    assert {"ModelCalls", "RunsSucceeded"} <= names
