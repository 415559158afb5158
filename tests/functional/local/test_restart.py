"""State survives a restart of the local server (SPEC §11); runs left in flight are resumed or failed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.clock import SystemClock
from mneme.models.chat import Chat
from mneme.models.run import Run, RunStatus
from mneme_local.sqlite_items import open_local_tables
from tests.functional.local.support import Client, LocalServer, wait_until

pytestmark = pytest.mark.slow

LONG_INPUT = "Please remember that the quarterly planning meeting moved to the large room on the third floor."


def _search(client: Client, query: str) -> list[dict[str, object]]:
    hits: list[dict[str, object]] = client.call("POST", "/v1/memory/search", {"query": query}, expect=200)["hits"]
    return hits


def test_agents_chats_runs_memories_and_audit_survive_a_restart(tmp_path: Path) -> None:
    server = LocalServer(tmp_path / "data").start()
    try:
        alice = Client(server, server.token("alice"))
        alice.call("PUT", "/v1/me/settings", {"name": "Alice", "email": "a@example.com", "language": "de"}, expect=200)
        alice.call("PUT", "/v1/skills/notes", {"description": "take notes", "content": "Write notes."}, expect=200)
        agent = {
            "label": "Keeper",
            "model": {"provider": "offline", "model_id": "offline"},
            "tools": ["memory-search"],
            "skills": ["notes"],
            "memory_policy": {"allow_write": True},
        }
        alice.call("PUT", "/v1/agents/keeper", agent, expect=200)
        alice.call(
            "PUT", "/v1/agents/keeper/tasks/plan", {"name": "Plan", "context_prompt": "Hi ${user_name}."}, expect=200
        )
        run = alice.call("POST", "/v1/runs", {"agent_id": "keeper", "task_id": "plan", "input": LONG_INPUT}, expect=200)
        doc = {"namespace": "vector.user.alice.preferences", "content": "Alice prefers tea over coffee."}
        alice.call("POST", "/v1/memory/documents", doc, expect=201)
        # the auto-write goes through the SQS queue and the background writer
        assert wait_until(lambda: len(_search(alice, "quarterly planning meeting room")) >= 2), _search(alice, "x")
        token = alice.token
    finally:
        assert server.stop() == 0
    # When the server restarts on the same data folder (a new process, a fresh moto)
    server = LocalServer(tmp_path / "data").start()
    try:
        alice = Client(server, token)  # the development key survived: the old token still works
        assert alice.call("GET", "/v1/me/settings", expect=200)["language"] == "de"
        assert [a["agent_id"] for a in alice.call("GET", "/v1/agents", expect=200)["agents"]] == ["keeper"]
        assert [t["task_id"] for t in alice.call("GET", "/v1/agents/keeper/tasks", expect=200)["tasks"]] == ["plan"]
        assert [s["name"] for s in alice.call("GET", "/v1/skills", expect=200)["skills"]] == ["notes"]
        again = alice.call("GET", f"/v1/runs/{run['run_id']}", expect=200)
        assert (again["status"], again["output"]) == ("succeeded", run["output"])
        chats = alice.call("GET", "/v1/chats", expect=200)["chats"]
        assert [c["chat_id"] for c in chats] == [run["chat_id"]]
        chat = alice.call("GET", f"/v1/chats/{run['chat_id']}", expect=200)
        assert len(chat["messages"]) == 2
        assert LONG_INPUT in {hit["content"] for hit in _search(alice, "quarterly planning meeting room")}
        assert "Alice prefers tea over coffee." in {hit["content"] for hit in _search(alice, "tea or coffee")}
        actions = {r["action"] for r in alice.call("GET", "/v1/audit?limit=100", expect=200)["records"]}
        assert {"read", "write"} <= actions
        # and runs keep working after the restart
        assert (
            alice.call("POST", "/v1/runs", {"agent_id": "keeper", "input": "again"}, expect=200)["status"]
            == "succeeded"
        )
    finally:
        server.stop()


def _left_running(data_dir: Path, run_id: str, *, parent: str | None = None, depth: int = 0) -> None:
    main, audit = open_local_tables(data_dir)
    try:
        now = datetime.now(UTC)
        if parent is None:
            chat = Chat(
                chat_id="chat-left", user_id="alice", agent_id="sub", title="left", created_at=now, updated_at=now
            )
            ItemChatStore(main, SystemClock()).create_chat(chat)
        ItemRunStore(main).create_run(
            Run(
                run_id=run_id,
                user_id="alice",
                agent_id="sub",
                chat_id="chat-left",
                depth=depth,
                parent_run_id=parent,
                root_run_id=parent or run_id,
                status=RunStatus.RUNNING if parent is None else RunStatus.QUEUED,
                input="finish me",
                created_at=now,
                updated_at=now,
            )
        )
    finally:
        main.close()
        audit.close()


def test_runs_left_in_flight_are_resumed_or_failed_on_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = LocalServer(data).start()
    try:
        alice = Client(server, server.token("alice"))
        alice.call("PUT", "/v1/agents/sub", {"label": "Sub"}, expect=200)
        done = alice.call("POST", "/v1/runs", {"agent_id": "sub", "input": "done"}, expect=200)
    finally:
        server.stop()
    # Given a root run left running and a child whose parent finished (as a killed server leaves them)
    _left_running(data, "leftroot")
    _left_running(data, "orphan", parent=done["run_id"], depth=1)
    # When the server starts again
    server = LocalServer(data).start()
    try:
        alice = Client(server, alice.token)
        # Then the root run is resumed by a new execution of the state machine and finishes
        resumed = alice.wait_run("leftroot")
        assert (resumed["status"], resumed["output"]) == ("succeeded", "offline: finish me")
        # And the orphaned child is failed with the reason, never left running
        orphan = alice.call("GET", "/v1/runs/orphan", expect=200)
        assert orphan["status"] == "failed" and "interrupted" in (orphan["error"] or "").lower()
    finally:
        server.stop()
