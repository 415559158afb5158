"""The local embedded server over real HTTP (SPEC §1, §11): auth, a delegated run through the state machine."""

from __future__ import annotations

import subprocess
import sys
import time

import jwt
import pytest

from mneme_local.token import issue
from tests.functional.local.support import REPO, Client, LocalServer, server_env

pytestmark = pytest.mark.slow

MASTER = {
    "label": "Master",
    "description": "delegates to the sub-agent",
    "model": {"provider": "offline", "model_id": "offline"},
    "tools": ["delegate-to-agent"],
    "delegates": ["sub"],
}
SUB = {"label": "Sub", "description": "answers", "model": {"provider": "offline", "model_id": "offline"}}


def test_a_delegated_run_goes_through_the_state_machine(server: LocalServer) -> None:
    # Given alice's token from the token command and two agents, the master delegating to the sub-agent
    alice = Client(server, server.token("alice"))
    alice.call("PUT", "/v1/agents/sub", SUB, expect=200)
    alice.call("PUT", "/v1/agents/master", MASTER, expect=200)
    # When alice starts a run that delegates
    started = alice.call("POST", "/v1/runs", {"agent_id": "master", "input": "/delegate sub :: say hi"}, expect=202)
    assert set(started) >= {"run_id", "status"}
    # Then the state machine finishes it: the master's output holds the sub-agent's answer
    run = alice.wait_run(started["run_id"])
    assert run["status"] == "succeeded", run
    assert run["depth"] == 0 and run["parent_run_id"] is None
    assert "offline: say hi" in run["output"]
    assert len(run["children"]) == 1
    # And the child run ran at depth 1 under the master
    child = alice.call("GET", f"/v1/runs/{run['children'][0]}", expect=200)
    assert (child["status"], child["depth"], child["agent_id"]) == ("succeeded", 1, "sub")
    assert child["parent_run_id"] == run["run_id"] and child["root_run_id"] == run["run_id"]
    assert child["output"] == "offline: say hi"
    # And the events tell the story in order, the audit holds the delegation
    types = [e["type"] for e in alice.call("GET", f"/v1/runs/{run['run_id']}/events", expect=200)["events"]]
    assert types.index("delegation_started") < types.index("delegation_finished") < types.index("completed")
    records = alice.call("GET", f"/v1/audit?run_id={run['run_id']}", expect=200)["records"]
    assert any(r["action"] == "delegation" for r in records)


def test_a_plain_run_answers_on_the_fast_path(server: LocalServer) -> None:
    bob = Client(server, server.token("bob"))
    bob.call("PUT", "/v1/agents/echo", SUB | {"label": "Echo"}, expect=200)
    run = bob.call("POST", "/v1/runs", {"agent_id": "echo", "input": "hello"}, expect=200)
    assert (run["status"], run["output"], run["depth"]) == ("succeeded", "offline: hello", 0)


def test_health_and_openapi_need_no_token(server: LocalServer) -> None:
    health = server.request("GET", "/v1/health")
    assert health.status == 200 and health.json()["status"] == "ok"
    openapi = server.request("GET", "/v1/openapi.json")
    assert openapi.status == 200 and "/v1/runs" in openapi.json()["paths"]


def _assert_401(response: object) -> None:
    status, body = response.status, response.json()  # type: ignore[attr-defined]
    assert status == 401, (status, body)
    assert body["error"] == "unauthorized" and body["message"]


def test_a_route_without_a_token_is_401(server: LocalServer) -> None:
    _assert_401(server.request("GET", "/v1/agents"))
    _assert_401(server.request("GET", "/v1/agents", headers={"Authorization": "Basic YWxpY2U6eA=="}))
    _assert_401(server.request("GET", "/v1/agents", headers={"Authorization": "Bearer"}))


def test_a_token_signed_with_another_key_is_401(server: LocalServer) -> None:
    forged = jwt.encode(
        {"sub": "alice", "iss": "mneme-local", "aud": "mneme", "iat": int(time.time()), "exp": int(time.time()) + 60},
        "a" * 64,
        algorithm="HS256",
    )
    refused = server.request("GET", "/v1/agents", token=forged)
    _assert_401(refused)
    assert "MNEME_DATA_DIR" in refused.json()["message"]  # the usual cause: a token of another data folder
    unsigned = jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, None, algorithm="none")  # type: ignore[arg-type]
    _assert_401(server.request("GET", "/v1/agents", token=unsigned))
    _assert_401(server.request("GET", "/v1/agents", token="not.a.jwt"))


def test_an_expired_token_is_401(server: LocalServer) -> None:
    expired = issue(server.data_dir, "alice", now=time.time() - 7200, hours=1)
    _assert_401(server.request("GET", "/v1/agents", token=expired))
    from_the_command = server.token("alice", hours=-1)
    _assert_401(server.request("GET", "/v1/agents", token=from_the_command))


def test_the_admin_flag_reaches_the_run_function(server: LocalServer) -> None:
    # Only an admin may write into vector.global.*: the admin group travels in the event's claims
    doc = {"namespace": "vector.global.howto", "content": "Local mode keeps its data in .local-data."}
    admin = Client(server, server.token("root", admin=True))
    assert admin.call("POST", "/v1/memory/documents", doc, expect=201)["ids"]
    user = Client(server, server.token("carol"))
    assert server.request("POST", "/v1/memory/documents", doc, token=user.token).status == 403


def test_make_demo_passes_against_the_server(server: LocalServer) -> None:
    # `make demo` = python -m mneme_local.demo, against a running server (same port and data folder)
    done = subprocess.run(
        [sys.executable, "-m", "mneme_local.demo"],
        cwd=REPO,
        env=server_env(server.data_dir, server.port),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for section in ("assembled context", "memory hits", "delegation tree", "audit trail", "bob signs in"):
        assert section in done.stdout
    assert "make demo: every check passed" in done.stdout
