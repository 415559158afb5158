"""``mneme`` without a token says how to give one: the server's 401 ("the Authorization header is missing") named
a header the user never writes — the command line sends it from ``--token`` or ``$MNEME_TOKEN``."""

from __future__ import annotations

import io

import pytest

from mneme_client import cli
from tests.functional.local.support import LocalServer


def _mneme(server: LocalServer, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["--url", server.base, *argv], out=io.StringIO())
    return code, capsys.readouterr().err


def test_no_token_says_to_set_mneme_token(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MNEME_TOKEN", raising=False)
    code, err = _mneme(server, capsys, "agents", "list")
    assert code == 1
    assert err.startswith("mneme: 401 unauthorized: no token: set $MNEME_TOKEN or pass --token")
    assert "mneme token" in err and "Authorization header" not in err


def test_an_empty_token_option_is_no_token_either(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEME_TOKEN", "ignored: --token is given")
    code, err = _mneme(server, capsys, "--token", "", "agents", "list")
    assert code == 1 and "no token: set $MNEME_TOKEN or pass --token" in err


def test_a_token_the_server_refuses_keeps_the_servers_reason(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEME_TOKEN", "not-a-token")
    code, err = _mneme(server, capsys, "agents", "list")
    assert code == 1 and "401 unauthorized" in err and "no token" not in err
