"""Erasure with a receipt, on every store: after ``DELETE /v1/me`` the user's data is unreachable by every
read path and absent from every table and index (scanned around the ports), other users' data is untouched,
and the receipt's counts and digest match what an export listed just before."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from mneme.adapters.dynamo.audit_chain import REDACTED_DETAIL
from tests.functional.privacy.support import (
    PrivacyWorld,
    lines,
    main_items_of,
    populate,
    scan_memory,
    scan_table,
)

NOT_ERASED = {"audit", "global_memory", "export_header", "export_end"}


def _export(pw: PrivacyWorld, user: str, **options: Any) -> list[dict[str, Any]]:
    reply = pw.api.post("/v1/me/export", None, user=user, **options)
    assert reply.status == 202 and reply.body["status"] == "ready", reply.text
    return list(lines(pw, user))


def _with_own_record(archive: list[dict[str, Any]], user: str) -> list[dict[str, Any]]:
    """An archive does not list its own export record; the erasure deletes (and counts) it too."""
    export_id = archive[0]["data"]["export_id"]
    return [*archive, {"kind": "export", "key": f"OWNER#{user}|EXPORT#{export_id}", "data": {}}]


def _erase(pw: PrivacyWorld, user: str) -> dict[str, Any]:
    reply = pw.api.delete("/v1/me", user=user)
    assert reply.status == 200, reply.text
    return dict(reply.body)


def test_the_receipt_counts_and_digest_match_the_export_taken_before(pw: PrivacyWorld) -> None:
    # Given alice's data of every kind, and an export of it
    populate(pw, "alice")
    before = [line for line in _with_own_record(_export(pw, "alice"), "alice") if line["kind"] not in NOT_ERASED]
    # When she erases herself
    receipt = _erase(pw, "alice")
    # Then the receipt counts what the export listed, kind by kind, and its digest is over the same keys
    expected = Counter(line["kind"] for line in before)
    expected["summary"] = sum(1 for line in before if line["kind"] == "chat" and line["data"].get("summary"))
    expected["dead_letter"] = 1
    assert receipt["counts"] == {kind: n for kind, n in expected.items() if n}
    keys = sorted(line["key"] for line in before)
    assert receipt["digest"] == hashlib.sha256("\n".join(keys).encode()).hexdigest()
    assert receipt["keys"] == len(keys)
    assert (receipt["status"], receipt["verified"], receipt["late"]) == ("done", True, {})
    assert {"settings", "agent", "task", "skill", "chat", "message", "run", "event", "request"} <= set(
        receipt["counts"]
    )
    assert {"checkpoint", "approval", "outbox", "run_index", "memory", "export"} <= set(receipt["counts"])
    # and neither the export nor the erasure scanned a table (DynamoDB: every read was a Query or a Get)
    if pw.backend.name == "dynamo":
        assert "Scan" not in pw.backend.calls and "Query" in pw.backend.calls


def test_after_erasure_nothing_of_the_user_is_left_in_any_table_or_index(pw: PrivacyWorld) -> None:
    populate(pw, "alice")
    populate(pw, "bob")
    _export(pw, "alice")
    _erase(pw, "alice")
    # the main table holds only her erasure state (the writer's tombstone, with the receipt)
    assert [(i["PK"], i["SK"]) for i in main_items_of(pw, "alice")] == [("ERASURE#alice", "STATE")]
    # the memory store holds nothing of hers, in any namespace, of any status
    assert [d.id for d in scan_memory(pw.store) if "alice" in d.namespace or d.owner_user_id == "alice"] == []
    # no export archive and no dead letter of hers is left
    assert not [k for k, v in pw.world.exports.objects.items() if b"alice" in v]
    assert not [b for b in pw.world.dead_letters.bodies if "alice" in b]
    # her audit records are kept, every one from before the erasure with its detail redacted
    audit = [i for i in scan_table(pw.backend.audit) if i["PK"] == "USER#alice"]
    erasure = next(i for i in audit if i["action"] == "erasure")
    earlier = [i for i in audit if int(i.get("chain_seq", 0)) < int(erasure["chain_seq"])]
    assert earlier and all(i["detail"] == REDACTED_DETAIL for i in earlier)


def test_other_users_data_is_untouched(pw: PrivacyWorld) -> None:
    populate(pw, "alice")
    populate(pw, "bob")
    bob_main = sorted(main_items_of(pw, "bob"), key=lambda i: (i["PK"], i["SK"]))
    bob_audit = sorted((i for i in scan_table(pw.backend.audit) if "bob" in i["PK"]), key=lambda i: i["SK"])
    bob_memory = sorted((d for d in scan_memory(pw.store) if d.owner_user_id == "bob"), key=lambda d: d.id)
    _erase(pw, "alice")
    assert sorted(main_items_of(pw, "bob"), key=lambda i: (i["PK"], i["SK"])) == bob_main
    assert sorted((i for i in scan_table(pw.backend.audit) if "bob" in i["PK"]), key=lambda i: i["SK"]) == bob_audit
    assert sorted((d for d in scan_memory(pw.store) if d.owner_user_id == "bob"), key=lambda d: d.id) == bob_memory
    assert [b for b in pw.world.dead_letters.bodies if "bob" in b]
    assert pw.api.get("/v1/audit/verify", user="bob").body["verified"] is True


def test_every_read_path_finds_nothing_of_the_erased_user(pw: PrivacyWorld) -> None:
    ids = populate(pw, "alice")
    export_id = pw.api.post("/v1/me/export", None, user="alice").body["export_id"]
    _erase(pw, "alice")
    get = pw.api.get
    assert get("/v1/me/settings", user="alice").body["name"] == ""  # the defaults: nothing is stored
    assert get("/v1/agents", user="alice").body == {"agents": [], "cursor": None}
    assert get("/v1/agents/helper", user="alice").status == 404
    assert get("/v1/agents/helper/tasks/daily", user="alice").status == 404
    assert get("/v1/skills", user="alice").body == {"skills": [], "cursor": None}
    assert get("/v1/chats", user="alice").body == {"chats": [], "cursor": None}
    assert get(f"/v1/chats/{ids['chat_id']}", user="alice").status == 404
    for run_id in (ids["run_id"], ids["idempotent_run_id"]):
        for path in ("", "/events", "/context", "/audit"):
            assert get(f"/v1/runs/{run_id}{path}", user="alice").status == 404, path
    search = pw.api.post("/v1/memory/search", {"query": "alice likes tea"}, user="alice")
    assert search.status == 200 and search.body["hits"] == []
    assert get(f"/v1/me/exports/{export_id}", user="alice").status == 404
    # and the same idempotency key starts a new run: the old one is gone with its derived id
    again = pw.api.post("/v1/runs", {"agent_id": "helper", "input": "again"}, user="alice")
    assert again.status == 404  # her agent is gone too


def test_a_second_export_holds_nothing_but_the_redacted_audit(pw: PrivacyWorld) -> None:
    populate(pw, "alice")
    _erase(pw, "alice")
    after = _export(pw, "alice")
    kinds = Counter(line["kind"] for line in after)
    assert set(kinds) == {"export_header", "audit", "export_end"}
    records = sorted((line["data"] for line in after if line["kind"] == "audit"), key=lambda r: r["chain_seq"])
    erasure = next(r for r in records if r["action"] == "erasure")
    assert all(r["detail"] == {"redacted": True} for r in records if r["chain_seq"] < erasure["chain_seq"])
    assert {r["action"] for r in records if r["chain_seq"] >= erasure["chain_seq"]} == {"erasure", "export"}
    assert pw.api.get("/v1/audit/verify", user="alice").body["verified"] is True


def test_global_memories_the_user_wrote_are_listed_not_erased(pw: PrivacyWorld) -> None:
    populate(pw, "alice", admin=True)
    receipt = _erase(pw, "alice")
    [listed] = receipt["global_memories"]
    assert listed["namespace"] == "vector.global.howto" and receipt["global_memories_total"] == 1
    assert [d.id for d in scan_memory(pw.store) if d.namespace.startswith("vector.global.")] == [listed["id"]]
