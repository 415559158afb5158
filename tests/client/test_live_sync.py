"""The synchronous client against a real local server (``python -m mneme_local.server``)."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest

from mneme_client import ApiError, Client, calls, local_token
from mneme_client.models import EventView, RunView
from tests.functional.local.support import LocalServer


@pytest.fixture
def user() -> str:
    return f"sync-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(server: LocalServer, user: str) -> Client:
    return Client(server.base, local_token(user, folder=server.data_dir))


def _agent(client: Client, agent_id: str = "helper") -> None:
    client.put_agent(agent_id, {"label": agent_id.title(), "tools": ["memory-search"]})


def test_a_local_token_is_accepted_and_a_missing_one_refused(server: LocalServer, client: Client) -> None:
    assert client.list_agents() == []
    with Client(server.base, "") as anonymous, pytest.raises(ApiError) as caught:
        anonymous.list_agents()
    assert caught.value.status == 401


def test_a_save_with_the_etag_read_refuses_to_overwrite_a_change_made_since(client: Client) -> None:
    _agent(client)
    read = client.get_agent("helper")
    saved = client.put_agent("helper", {"label": "Mine"}, if_match=read.etag)
    assert saved.etag is not None and saved.etag != read.etag
    with pytest.raises(ApiError) as caught:
        client.put_agent("helper", {"label": "Stale"}, if_match=read.etag)
    assert (caught.value.status, caught.value.code) == (412, "precondition_failed")
    assert client.get_agent("helper")["label"] == "Mine"


def test_an_agents_revisions_restore_a_deleted_agent(client: Client) -> None:
    _agent(client)
    client.delete_agent("helper")
    deleted, saved = client.agent_revisions("helper")
    assert (deleted["change"], saved["change"]) == ("deleted", "saved")
    client.put_agent("helper", deleted["agent"])
    assert client.get_agent("helper")["label"] == "Helper"


def test_agents_are_saved_listed_and_deleted(client: Client) -> None:
    _agent(client)
    assert client.get_agent("helper")["label"] == "Helper"
    assert [a["agent_id"] for a in client.list_agents()] == ["helper"]
    client.delete_agent("helper")
    with pytest.raises(ApiError) as caught:
        client.get_agent("helper")
    assert caught.value.status == 404


def test_a_run_answers_its_output_and_is_read_back(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "hello there")
    assert isinstance(run, RunView)
    assert (run.status, run.output) == ("succeeded", "offline: hello there")
    assert client.get_run(run.run_id).output == "offline: hello there"


def test_follow_streams_the_events_of_a_run_until_it_ends(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "/search apollo")
    kinds = [item.type for item in client.follow(run.run_id) if isinstance(item, EventView)]
    assert kinds[0] == "run_started"
    assert kinds[-1] == "completed"
    assert "tool_call" in kinds


def test_memory_written_is_found_and_exported(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    ids = client.write_memory(namespace, "The Apollo review is due on March 15.").ids
    hits = client.search_memory("When is the Apollo review due?").hits
    assert [hit.id for hit in hits][:1] == ids
    exported = list(client.export_memory())
    assert [(d.id, d.content) for d in exported] == [(ids[0], "The Apollo review is due on March 15.")]


def test_a_search_asking_for_lines_gets_them_with_its_chat_line_hit(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    for content in ("Joanna: I finished my first screenplay!", "Joanna: A mix of drama and romance."):
        client.write_memory(namespace, content)
    (hit,) = client.search_memory("Joanna: I finished my first screenplay!", top_k=1, lines=True).hits
    assert [line["content"] for line in hit.context or []] == ["Joanna: A mix of drama and romance."]
    (plain,) = client.search_memory("Joanna: I finished my first screenplay!", top_k=1).hits
    assert plain.context is None


def test_memory_of_another_user_is_neither_found_nor_exported(server: LocalServer, client: Client) -> None:
    stranger = f"other-{uuid.uuid4().hex[:8]}"
    other = Client(server.base, local_token(stranger, folder=server.data_dir))
    other.write_memory(f"vector.user.{stranger}.memory", "A secret of someone else.")
    assert client.search_memory("secret").hits == []
    assert list(client.export_memory()) == []


def test_a_runs_chat_is_listed_with_its_messages(client: Client) -> None:
    _agent(client)
    run = client.start_run("helper", "remember the milk", chat_id="groceries")
    assert isinstance(run, RunView)
    assert run.chat_id == "groceries"
    assert [c["chat_id"] for c in client.list_chats()] == ["groceries"]
    texts = [str(m) for m in client.get_chat("groceries").messages]
    assert any("remember the milk" in text for text in texts)
    client.delete_chat("groceries")
    assert client.list_chats() == []


def _failed_run(client: Client, agent_id: str = "helper") -> str:
    """A run that fails: a search needs two model calls, the budget allows one."""
    run = client.start_run(agent_id, "/search apollo", budget={"max_model_calls": 1})
    assert run.status == "failed"
    return run.run_id


def test_list_runs_filters_by_status(client: Client) -> None:
    _agent(client)
    failed = _failed_run(client)
    succeeded = client.start_run("helper", "hello").run_id
    (listed,) = client.list_runs(status="failed").runs
    assert (listed.run_id, listed.status, listed.agent_id) == (failed, "failed", "helper")
    assert (listed.error or "").startswith("budget_exceeded")
    assert [run.run_id for run in client.list_runs(status="succeeded").runs] == [succeeded]


def test_list_runs_filters_by_agent_and_chat(client: Client) -> None:
    _agent(client)
    _agent(client, "other")
    mine = client.start_run("helper", "hello", chat_id="c-runs").run_id
    theirs = client.start_run("other", "hello").run_id
    assert [run.run_id for run in client.list_runs(agent_id="other").runs] == [theirs]
    assert [run.run_id for run in client.list_runs(chat_id="c-runs").runs] == [mine]


def test_list_runs_takes_since_and_until_as_text_or_datetime(client: Client) -> None:
    _agent(client)
    first, middle, last = (client.start_run("helper", f"run {n}").run_id for n in range(3))
    created = next(run.created_at for run in client.list_runs().runs if run.run_id == middle)
    assert [run.run_id for run in client.list_runs(since=created).runs] == [last, middle]
    assert [run.run_id for run in client.list_runs(until=datetime.fromisoformat(created)).runs] == [middle, first]


def test_iter_runs_pages_through_every_run_exactly_once(client: Client) -> None:
    _agent(client)
    started = [client.start_run("helper", f"run {n}").run_id for n in range(5)]
    first = client.list_runs(limit=2)
    assert len(first.runs) == 2 and first.cursor is not None  # more than one page
    listed = [run.run_id for run in client.iter_runs(page_size=2)]
    assert listed == started[::-1]  # newest first, none twice, none left out


def test_another_users_runs_are_never_listed(server: LocalServer, client: Client) -> None:
    stranger = f"other-{uuid.uuid4().hex[:8]}"
    other = Client(server.base, local_token(stranger, folder=server.data_dir))
    _agent(other)
    theirs = _failed_run(other)
    assert [run.run_id for run in other.list_runs().runs] == [theirs]
    assert client.list_runs().runs == []
    assert list(client.iter_runs(status="failed")) == []


def _said(n: int) -> dict[str, str]:
    return {"content": f"Maria: note number {n} about the garden", "observed_at": f"2026-03-{n % 28 + 1:02d}T10:00:00Z"}


def test_import_memory_stores_every_item_and_a_second_import_stores_nothing_twice(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    items = [_said(n) for n in range(3)]
    first = list(client.import_memory(items, namespace=namespace))
    assert [(r.index, r.status, bool(r.replayed)) for r in first] == [(0, 201, False), (1, 201, False), (2, 201, False)]
    again = list(client.import_memory(items, namespace=namespace))
    assert [(r.ids, bool(r.replayed)) for r in again] == [(r.ids, True) for r in first]
    stored = client.call(calls.memory_page(namespace)).documents
    assert sorted(str(d.observed_at)[:19] for d in stored) == [f"2026-03-0{n}T10:00:00" for n in (1, 2, 3)]


def test_import_memory_answers_a_bad_item_by_its_index_across_batches(client: Client, user: str) -> None:
    items = [_said(n) for n in range(150)]
    items[120] = {"content": ""}  # refused; the 149 others are stored, in two requests
    results = list(client.import_memory(items, namespace=f"vector.user.{user}.memory"))
    assert [r.index for r in results] == list(range(150))
    assert [r.index for r in results if r.error] == [120]
    assert results[120].status == 400
    assert sum(1 for r in results if r.status == 201) == 149


def test_an_exported_long_entry_imports_as_one_entry_with_the_same_chunks(
    server: LocalServer, client: Client, user: str
) -> None:
    long = " ".join(f"Sentence {n} of the Lisbon office's quarterly plan and its budget." for n in range(40))
    client.write_memory(f"vector.user.{user}.memory", long, observed_at="2026-11-01T10:00:00Z")
    exported = [d.model_dump(mode="json", by_alias=True) for d in client.export_memory()]
    assert len(exported) > 1  # the entry's chunks, one document each
    other = f"sync-{uuid.uuid4().hex[:8]}"
    moved = [d | {"namespace": f"vector.user.{other}.memory"} for d in exported]
    with Client(server.base, local_token(other, folder=server.data_dir)) as target:
        first = list(target.import_memory(moved))
        again = list(target.import_memory(moved))
        imported = list(target.export_memory())
    assert {(r.status, bool(r.replayed)) for r in first} == {(201, False)}
    assert len({tuple(r.ids or ()) for r in first}) == 1  # every line answered by the one entry
    assert {(r.status, bool(r.replayed)) for r in again} == {(201, True)}
    assert sorted((d.chunk_index, d.content) for d in imported) == sorted(
        (d["chunk_index"], d["content"]) for d in exported
    )


def test_a_search_can_explain_and_look_back(client: Client, user: str) -> None:
    client.write_memory(f"vector.user.{user}.memory", "The Apollo review is due on March 15.")
    explained = client.search_memory("When is the Apollo review due?", explain=True)
    assert explained.hits and explained.explanation is not None
    assert client.search_memory("When is the Apollo review due?").explanation is None
    assert client.search_memory("When is the Apollo review due?", as_of="2020-01-01T00:00:00Z").hits == []


def test_following_a_run_that_is_not_the_callers_raises_the_apis_404(client: Client) -> None:
    with pytest.raises(ApiError) as caught:
        list(client.follow("no-such-run"))
    assert (caught.value.status, caught.value.code) == (404, "not_found")
    assert "no-such-run" in caught.value.message


def test_moments_without_an_offset_are_sent_as_the_server_takes_them_utc(client: Client, user: str) -> None:
    """The API reads a moment without an offset as UTC, and a date alone as its midnight: the client sends
    them, instead of refusing them before anything is sent."""
    from datetime import UTC

    naive = datetime(2026, 12, 1, 10)
    client.write_memory(f"vector.user.{user}.notes", "Carol prefers window seats", observed_at=naive)
    assert [d.observed_at for d in client.export_memory()] == ["2026-12-01T10:00:00Z"]
    now = datetime.now(UTC).replace(tzinfo=None)
    assert [h.content for h in client.search_memory("window seats", as_of=now).hits] == ["Carol prefers window seats"]
    assert client.search_memory("window seats", as_of="2020-01-01").hits == []
