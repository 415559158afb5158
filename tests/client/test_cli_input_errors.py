"""What the ``mneme`` command line is given that cannot be used is said in one line with exit status 2 — before,
a body file that is not JSON, a missing file or an empty run input ended in a Python traceback. Nothing here
reaches a server: each is refused before a request is sent."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mneme_client import cli

NOWHERE = ["--url", "http://127.0.0.1:9", "--token", "not-used"]


def _mneme(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main([*NOWHERE, *argv], out=io.StringIO())
    return code, capsys.readouterr().err


def test_an_agent_body_that_is_not_json_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = tmp_path / "agent.json"
    body.write_text("{label: 'x'}", encoding="utf-8")
    code, err = _mneme(capsys, "agents", "put", "helper", str(body))
    assert code == 2
    assert err.startswith(f"mneme: {body} is not JSON") and "Traceback" not in err


@pytest.mark.parametrize("argv", [["agents", "put", "helper"], ["memory", "import"]])
def test_a_missing_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]) -> None:
    missing = str(tmp_path / "missing.json")
    code, err = _mneme(capsys, *argv, missing)
    assert (code, err.strip()) == (2, f"mneme: cannot read {missing}: No such file or directory")


def test_an_empty_run_input_is_refused_naming_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _mneme(capsys, "run", "helper", "")
    assert code == 2
    assert err.startswith("mneme: invalid RunRequest: input: String should have at least 1 character")


def test_a_memory_write_to_a_malformed_namespace_is_refused_naming_the_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _mneme(capsys, "memory", "write", "notes", "Tea at four.")
    assert code == 2 and err.startswith("mneme: invalid DocumentBody: namespace: ")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["agents", "get"], "agents get: agent_id is required"),
        (["agents", "delete"], "agents delete: agent_id is required"),
        (["agents", "put", "helper"], "agents put: file is required"),
        (["chats", "show"], "chats show: chat_id is required"),
        (["chats", "delete"], "chats delete: chat_id is required"),
    ],
)
def test_a_missing_argument_is_bad_usage(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    # the module's docstring: bad usage exits 2, as argparse's own missing arguments do (it exited 1)
    code, err = _mneme(capsys, *argv)
    assert (code, err.strip()) == (2, f"mneme: {said}")


@pytest.mark.parametrize("hours", ["nan", "-1", "0", "1e20"])
def test_a_token_valid_for_no_time_or_forever_is_refused(capsys: pytest.CaptureFixture[str], hours: str) -> None:
    with pytest.raises(SystemExit) as exited:  # argparse: the usage and the reason, exit 2
        cli.main(["token", "alice", "--hours", hours], out=io.StringIO())
    assert exited.value.code == 2
    assert "is not a number of hours above 0" in capsys.readouterr().err
