"""The memory-write tool with the lifecycle (issue 13.1, 11.3): the model's metadata without mneme's reserved
keys, the entry marked agent_initiated, long content in chunks."""

from __future__ import annotations

from typing import Any

from tests.fakes.model import ScriptedModel, text_response, tool_use_response
from tests.functional.engine.conftest import add_agent, run
from tests.support.deps import World, make_world

NS = "vector.user.alice.notes"
POLICY = {"allow_tool_write": True, "allowed_write_namespaces": [NS], "auto_read_enabled": False}


def _write(args: dict[str, Any]) -> tuple[World, list[dict[str, Any]]]:
    world = make_world(
        ScriptedModel([tool_use_response(("memory-write", {"namespace": NS, **args})), text_response("done")])
    )
    add_agent(world, tools=["memory-write"], memory_policy=POLICY)
    result = run(world, "note this")
    calls = [e.data for e in world.deps.runs.list_events(result.run.run_id) if e.type == "tool_call"]
    return world, calls


def test_a_model_cannot_set_reserved_metadata_keys() -> None:
    world, calls = _write({"content": "Alice likes tea", "metadata": {"source": "http", "run_id": "forged"}})
    [error] = [c for c in calls if c["status"] == "error"]
    assert "reserved" in error["error"] and "run_id" in error["error"]
    assert world.memory.documents == {}


def test_a_models_own_metadata_is_kept_and_the_entry_is_agent_initiated() -> None:
    world, _ = _write({"content": "Alice likes tea", "metadata": {"topic": "drinks"}})
    [doc] = world.memory.documents.values()
    assert doc.metadata["topic"] == "drinks" and doc.metadata["source"] == "tool"
    assert doc.authority == "agent_initiated"


def test_long_tool_content_is_stored_in_chunks() -> None:
    text = " ".join(f"Line {i} of the meeting notes about the harbour." for i in range(400))  # ~20,000 chars
    world, calls = _write({"content": text})
    assert [c["status"] for c in calls if c["status"] != "requested"] == ["success"]
    chunks = sorted(world.memory.documents.values(), key=lambda d: d.chunk_index or 0)
    assert len(chunks) >= 3 and all(c.chunk_count == len(chunks) for c in chunks)
