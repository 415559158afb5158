"""A run's memory tools when the audit cannot be written: the tool call fails and the memory is as it was — no
entry written, corrected or deleted without its record (SPEC §9), and the run still finishes."""

from __future__ import annotations

from typing import Any

from mneme.errors import AuditWriteFailed
from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.functional.engine.memory_support import remember
from tests.reliability.faults import FlakyAudit
from tests.support.deps import World, make_world

NS = "vector.user.alice.notes"
POLICY = {
    "allow_tool_write": True,
    "allow_tool_delete": True,
    "allowed_write_namespaces": [NS],
    "tool_read_namespaces": [NS],
    "auto_read_enabled": False,
}


def _call_with_the_audit_down(tool: str, args: dict[str, Any], world: World | None = None) -> tuple[World, str]:
    world = world or make_world(ScriptedModel([]))
    world.model.add(tool_use_response((tool, {"namespace": NS, **args})), text_response("done"))  # type: ignore[attr-defined]
    add_agent(world, tools=["memory-write", "memory-update", "memory-delete"], memory_policy=POLICY)
    object.__setattr__(
        world.deps, "audit", FlakyAudit(world.deps.audit, lambda: AuditWriteFailed("the audit table is unavailable"))
    )
    result = run(world, "remember this")
    [call] = [
        e.data
        for e in world.deps.runs.list_events(result.run.run_id)
        if e.type == "tool_call" and e.data["status"] != "requested"
    ]
    assert result.run.status == "succeeded", call
    assert "not available" not in str(call.get("error")), call
    return world, call["status"]


def test_a_tool_write_that_cannot_be_audited_fails_and_stores_nothing() -> None:
    world, status = _call_with_the_audit_down("memory-write", {"content": "Alice likes green tea"})
    assert status == "error" and world.memory.documents == {}


def test_a_tool_correction_that_cannot_be_audited_fails_and_changes_nothing() -> None:
    world = make_world(ScriptedModel([]))
    doc_id = remember(world, NS, "Alice likes green tea")
    world, status = _call_with_the_audit_down("memory-update", {"id": doc_id, "content": "Alice likes coffee"}, world)
    assert status == "error" and world.memory.documents[doc_id].content == "Alice likes green tea"


def test_a_tool_delete_that_cannot_be_audited_fails_and_deletes_nothing() -> None:
    world = make_world(ScriptedModel([]))
    doc_id = remember(world, NS, "Alice likes green tea")
    world, status = _call_with_the_audit_down("memory-delete", {"id": doc_id}, world)
    assert status == "error" and not world.memory.documents[doc_id].deleted
