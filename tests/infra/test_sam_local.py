"""``sam local invoke`` as the docs describe it (Docker is not available here): every ``events/*.json`` the
docs name exists and has the shape of its event type, ``events/env.json`` sets only variables the template
declares on each function, and every documented invocation names a function of the template."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stack import FROM_OUTPUTS, main, sam_env
from tests.support.sam_template import ROOT, load_template, resources

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MENTION = re.compile(r"\bevents/([A-Za-z0-9_.-]+\.json)\b")
INVOKE = re.compile(r"sam local invoke (\w+) -e (\S+) --env-vars (\S+)")


def _text() -> str:
    return "\n".join(doc.read_text() for doc in DOCS)


def _named() -> list[str]:
    return sorted(set(MENTION.findall(_text())))


def _event(name: str) -> Any:
    return json.loads((ROOT / "events" / name).read_text())


def _template_env(function: str) -> set[str]:
    names = set(load_template()["Globals"]["Function"]["Environment"]["Variables"])
    return names | set(resources()[function]["Properties"].get("Environment", {}).get("Variables", {}))


def _check_http(event: Any) -> None:
    assert event["version"] == "2.0"
    assert event["requestContext"]["http"]["method"] in ("GET", "PUT", "POST", "DELETE")
    assert event["requestContext"]["http"]["path"] == event["rawPath"]
    method = event["requestContext"]["http"]["method"]
    assert event["routeKey"] in (f"{method} /v1/{{proxy+}}", f"GET {event['rawPath']}")
    if "body" in event:
        json.loads(event["body"])


def _check_eventbridge(event: Any) -> None:
    assert event["version"] == "0" and event["id"] and event["source"]
    assert event["detail-type"] == "mneme.RunRequested"
    assert isinstance(event["detail"], dict) and event["detail"]["user_id"]


def _check_sqs(event: Any) -> None:
    assert event["Records"] and all(r["eventSource"] == "aws:sqs" for r in event["Records"])
    for record in event["Records"]:
        assert record["messageId"] and record["eventSourceARN"].startswith("arn:aws:sqs:")
        json.loads(record["body"])


def _check_step(event: Any) -> None:
    assert event["action"] in ("step", "await_approval", "fail") and event["run_id"]


def _check_env(env: Any) -> None:
    functions = set(resources("AWS::Serverless::Function"))
    assert set(env) <= functions and env
    for function, variables in env.items():
        assert set(variables) <= _template_env(function), function
        assert all(isinstance(value, str) for value in variables.values()), function


CHECKS = {"http-": _check_http, "eventbridge-": _check_eventbridge, "sqs-": _check_sqs, "step": _check_step}


def test_the_docs_name_the_sample_events_and_the_env_file() -> None:
    named = _named()
    assert "env.json" in named and "http-health.json" in named and "eventbridge-run-requested.json" in named


@pytest.mark.parametrize("name", _named())
def test_every_event_file_the_docs_name_exists_and_parses_as_its_event_type(name: str) -> None:
    path = ROOT / "events" / name
    assert path.is_file(), f"the docs name events/{name}, which does not exist"
    if name == "env.json":
        _check_env(_event(name))
        return
    (check,) = [check for prefix, check in CHECKS.items() if name.startswith(prefix)]
    check(_event(name))


def test_every_documented_invocation_names_a_template_function_an_event_and_an_env_file() -> None:
    invocations = INVOKE.findall(_text())
    assert len(invocations) >= 6
    functions = set(resources("AWS::Serverless::Function"))
    for function, event, env in invocations:
        assert function in functions, function
        assert (ROOT / event).is_file(), event
        assert env in ("events/env.json", ".aws-sam/env.json"), env  # .aws-sam/env.json: make sam-env
    assert any(env == "events/env.json" for *_, env in invocations)


def test_the_env_file_sets_every_variable_the_run_function_reads() -> None:
    # a variable the template sets but env.json leaves out would reach the container as SAM's placeholder
    env = _event("env.json")
    assert set(env["RunFunction"]) == _template_env("RunFunction")
    assert set(env["WriterFunction"]) == _template_env("WriterFunction")


def test_make_sam_env_fills_the_stack_specific_names_from_the_outputs(tmp_path: Path) -> None:
    outputs = {output: f"value-of-{output}" for output in FROM_OUTPUTS.values()}
    env = sam_env(outputs)
    for function in ("RunFunction", "WriterFunction"):
        for name, output in FROM_OUTPUTS.items():
            if name in env[function]:
                assert env[function][name] == f"value-of-{output}"
    assert env["RunFunction"]["MNEME_MODEL_PROVIDER"] == _event("env.json")["RunFunction"]["MNEME_MODEL_PROVIDER"]
    outputs_declared = set(load_template()["Outputs"])
    assert set(FROM_OUTPUTS.values()) <= outputs_declared


def test_make_sam_env_without_aws_says_why_and_writes_no_file(monkeypatch, capsys, tmp_path: Path) -> None:
    # before: botocore's NoRegionError traceback, and the Makefile's redirect left an empty .aws-sam/env.json
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    out = tmp_path / ".aws-sam" / "env.json"
    assert main(["sam-env", "--stack", "mneme-dev", "--out", str(out)]) == 1
    assert "sam-env: cannot read stack 'mneme-dev': You must specify a region." in capsys.readouterr().err
    assert not out.exists()
