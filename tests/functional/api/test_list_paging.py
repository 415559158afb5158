"""GET /v1/agents, /v1/agents/{id}/tasks, /v1/skills and /v1/chats page: a list larger than Lambda's 6 MB
response reads back completely instead of failing, ``limit`` pages by count, and a cursor is the caller's own.
On each ItemTable backend (dynamo = moto, sqlite, memory)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from mneme.adapters.dynamo.chat_items import READ_PAGE
from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.models import Chat
from mneme.models.agent import Agent, Skill, Task
from mneme.models.common import GLOBAL_OWNER
from mneme.records import replace
from mneme.spec_limits import LAMBDA_RESPONSE_BYTES
from tests.functional.adapters.item_backends import BACKENDS
from tests.functional.api.conftest import Api
from tests.functional.api.paging_support import all_pages, lambda_bytes, paged_api
from tests.support.deps import World

# quotes and non-ASCII text: each is escaped twice on its way into the Lambda response (\" -> \\\")
PROSE = 'He said "the tea is ready" — über grün, 5\\6. '
LISTS = {"agents": "/v1/agents", "tasks": "/v1/agents/helper/tasks", "skills": "/v1/skills", "chats": "/v1/chats"}


@pytest.fixture(params=BACKENDS)
def paged(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Api]:
    yield from paged_api(request.param, tmp_path)


def _stock(api: Api, key: str, names: list[str], user: str = "alice", text: str = "") -> list[str]:
    """Store one item of the ``key`` list per name for ``user``; the ids the list answers, in its order."""
    config, at = api.world.deps.config, api.world.clock.now()
    if key == "tasks" or config.get_agent(user, "helper") is None:
        config.put_agent(Agent(agent_id="helper", owner=user, label="Helper"))
    for position, name in enumerate(names):
        if key == "agents":
            config.put_agent(Agent(agent_id=name, owner=user, label=name, description=text[:4000]))
        elif key == "tasks":
            config.put_task(Task(task_id=name, agent_id="helper", owner=user, name=name, context_prompt=text))
        elif key == "skills":
            config.put_skill(Skill(name=name, owner=user, description="d", content=text or "c"))
        else:  # chats, the newest first: the later a name, the older its chat
            stamp = at - timedelta(minutes=position)
            chat = Chat(chat_id=name, user_id=user, title="t", summary=text or None, created_at=stamp, updated_at=stamp)
            api.world.deps.chats.create_chat(chat)
    listed = names if key == "chats" else sorted(names + (["helper"] if key == "agents" else []))
    return listed


def _ids(key: str, items: list[dict[str, Any]]) -> list[str]:
    field = {"agents": "agent_id", "tasks": "task_id", "skills": "name", "chats": "chat_id"}[key]
    return [item[field] for item in items]


@pytest.mark.parametrize("key", list(LISTS))
def test_a_list_pages_by_limit_each_item_once_in_order(paged: Api, key: str) -> None:
    # Given five items
    expected = _stock(paged, key, [f"item-{n}" for n in "edcba"])
    # When alice reads the list two at a time
    items, sizes = all_pages(paged, LISTS[key], key, limit="2")
    # Then every item comes once, in the list's order, over as many pages as that takes
    assert _ids(key, items) == expected
    assert len(sizes) == (len(expected) + 1) // 2
    _, _, first = lambda_bytes(paged, LISTS[key], limit="2")
    assert len(first[key]) == 2 and first["cursor"] is not None


@pytest.mark.parametrize("key", list(LISTS))
def test_without_a_limit_a_list_that_fits_is_one_page(paged: Api, key: str) -> None:
    expected = _stock(paged, key, [f"item-{n}" for n in range(30)])
    status, _size, body = lambda_bytes(paged, LISTS[key])
    assert status == 200
    assert (_ids(key, body[key]), body["cursor"]) == (expected, None)


@pytest.mark.parametrize(("key", "count", "chars"), [("skills", 44, 99_000), ("chats", 44, 99_000)])
def test_a_list_larger_than_a_response_reads_back_completely(paged: Api, key: str, count: int, chars: int) -> None:
    # Given 44 skills (chats with summaries) of 99,000 characters, more than 6 MB as the API writes them
    text = (PROSE * (chars // len(PROSE) + 1))[:chars]
    expected = _stock(paged, key, [f"big-{n:02d}" for n in range(count)], text=text)
    # When every page is read
    items, sizes = all_pages(paged, LISTS[key], key)
    # Then all of them, in order, and each page fit in a Lambda response (before: one 500)
    assert _ids(key, items) == expected
    assert len(sizes) >= 2 and max(sizes) < LAMBDA_RESPONSE_BYTES


def test_a_page_of_agents_follows_its_cursor_when_an_agent_is_added_before_it(paged: Api) -> None:
    _stock(paged, "agents", ["b-agent", "c-agent", "d-agent"])  # and "helper"
    _, _, first = lambda_bytes(paged, "/v1/agents", limit="2")
    assert (_ids("agents", first["agents"]), first["cursor"]) == (["b-agent", "c-agent"], "c-agent")
    # When an agent that sorts first is added between the pages
    paged.world.deps.config.put_agent(Agent(agent_id="a-agent", owner="alice", label="A"))
    _, _, second = lambda_bytes(paged, "/v1/agents", limit="2", cursor=first["cursor"])
    # Then the next page neither repeats nor skips one of those that were there
    assert _ids("agents", second["agents"]) == ["d-agent", "helper"]


def test_global_skills_page_with_the_callers_own(paged: Api) -> None:
    _stock(paged, "skills", ["b-own", "d-own"])
    _stock(paged, "skills", ["a-shared", "c-shared", "d-own"], user=GLOBAL_OWNER)  # d-own: alice's shadows it
    items, sizes = all_pages(paged, "/v1/skills", "skills", limit="2")
    assert [(s["name"], s["global"]) for s in items] == [
        ("a-shared", True),
        ("b-own", False),
        ("c-shared", True),
        ("d-own", False),
    ]
    assert len(sizes) == 2


@pytest.mark.parametrize("key", list(LISTS))
@pytest.mark.parametrize(
    ("query", "field"),
    [({"cursor": "Not A Cursor!"}, "cursor"), ({"limit": "0"}, "limit"), ({"limit": "1001"}, "limit")],
)
def test_a_bad_list_argument_is_a_400_naming_it(paged: Api, key: str, query: dict[str, str], field: str) -> None:
    _stock(paged, key, ["item-a"])
    status, _size, body = lambda_bytes(paged, LISTS[key], **query)
    assert (status, body.get("field")) == (400, field), body


def test_another_users_chat_cursor_is_a_400_and_reads_nothing_of_theirs(paged: Api) -> None:
    # Given bob's chats and a cursor of his list
    _stock(paged, "chats", ["bob-1", "bob-2", "bob-3"], user="bob")
    _, _, bobs = lambda_bytes(paged, "/v1/chats", as_user="bob", limit="1")
    assert bobs["cursor"] is not None
    # When alice passes it
    status, _size, body = lambda_bytes(paged, "/v1/chats", cursor=bobs["cursor"])
    # Then it is refused
    assert (status, body["field"]) == (400, "cursor")


class _CountingReads:
    """An ItemTable that counts the items its queries answer."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self.read = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def query(self, *args: Any, **kwargs: Any) -> Any:
        page = self._table.query(*args, **kwargs)
        self.read += len(page.items)
        return page


def test_a_page_of_chats_reads_only_the_chats_it_shows(world: World) -> None:
    # Given alice's 300 chats
    counting = _CountingReads(world.deps.chats._table)  # type: ignore[attr-defined]
    chats = ItemChatStore(counting, world.clock)
    api = Api(dataclasses.replace(world, deps=replace(world.deps, chats=chats)))
    _stock(api, "chats", [f"chat-{n:03d}" for n in range(300)])
    # When she reads the first page of two
    counting.read = 0
    status, _size, body = lambda_bytes(api, "/v1/chats", limit="2")
    # Then one query page was read, not her 300 chats
    assert (status, _ids("chats", body["chats"])) == (200, ["chat-000", "chat-001"])
    assert counting.read <= READ_PAGE


def test_the_openapi_document_describes_the_list_paging(api: Api) -> None:
    document = api.get("/v1/openapi.json").body
    for path in ("/v1/agents", "/v1/agents/{agent_id}/tasks", "/v1/skills", "/v1/chats"):
        parameters = {p["name"]: p for p in document["paths"][path]["get"]["parameters"]}
        assert {"limit", "cursor"} <= set(parameters), path
        assert parameters["limit"]["required"] is False, path
