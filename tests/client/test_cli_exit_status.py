"""The ``mneme`` command line's exit status is one rule (README, ``mneme --help``): a value refused — by the client
before anything is sent, or by the server's 400 — is bad usage, exit 2; any other error of the API is exit 1.
Before, a value only the server refuses (``runs --limit 0``) exited 1 while the same kind of value the client
refuses exited 2."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pytest

from mneme_client import cli
from tests.functional.local.support import LocalServer


@pytest.fixture
def env(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEME_URL", server.base)
    monkeypatch.setenv("MNEME_DATA_DIR", str(server.data_dir))
    monkeypatch.delenv("MNEME_TOKEN", raising=False)
    monkeypatch.setenv("MNEME_TOKEN", _mneme("token", f"exit-{uuid.uuid4().hex[:8]}")[1].strip())


def _mneme(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


@pytest.mark.parametrize(
    ("argv", "field"),
    [(["runs", "--limit", "0"], "limit"), (["runs", "--since", "yesterday"], "since")],
)
def test_a_value_only_the_server_refuses_is_bad_usage(
    env: None, capsys: pytest.CaptureFixture[str], argv: list[str], field: str
) -> None:
    code, _ = _mneme(*argv)
    err = capsys.readouterr().err
    assert (code, err.startswith("mneme: 400 invalid_input: ")) == (2, True), err
    assert f"(field: {field})" in err


def test_an_agent_body_the_server_refuses_is_bad_usage(
    env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "agent.json"
    body.write_text(json.dumps({"label": 5}), encoding="utf-8")
    assert _mneme("agents", "put", "x", str(body))[0] == 2
    assert "400 invalid_input: label: " in capsys.readouterr().err


def test_an_error_of_the_api_that_refuses_no_value_exits_1(env: None, capsys: pytest.CaptureFixture[str]) -> None:
    # a 404: the request's values are fine, the run does not exist
    assert _mneme("status", "run-that-does-not-exist")[0] == 1
    assert "404 not_found" in capsys.readouterr().err


def test_the_help_states_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"], out=io.StringIO())
    said = " ".join(capsys.readouterr().out.split())
    assert "exit status:" in said
    assert "2 bad usage" in said and "by the server (its 400 or 422 answer" in said
