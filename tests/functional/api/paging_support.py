"""Reading a GET route as API Gateway receives it from Lambda, page after page (the paging tests' helpers)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.records import replace
from tests.fakes.clock import FixedClock
from tests.functional.adapters.item_backends import make_backend
from tests.functional.api.conftest import Api, http_event
from tests.support.deps import make_world


def paged_api(backend: str, tmp_path: Path) -> Iterator[Api]:
    """The API over the run, chat and configuration stores of one ItemTable backend (dynamo = moto, from
    template.yaml's tables)."""
    for tables in make_backend(backend, tmp_path):
        world = make_world(None)  # type: ignore[arg-type]  # no model is called here
        clock = FixedClock()
        deps = replace(
            world.deps,
            runs=ItemRunStore(tables.main, clock=clock),
            chats=ItemChatStore(tables.main, clock),
            config=ItemConfigStore(tables.main),
        )
        yield Api(dataclasses.replace(world, deps=deps, clock=clock))


def lambda_bytes(api: Api, path: str, *, as_user: str = "alice", **query: str) -> tuple[int, int, Any]:
    """(status, size of the Lambda response document, parsed body) of one GET by ``as_user``."""
    response = api.runtime.handle(http_event("GET", path, query=query or None, user=as_user))
    return response["statusCode"], len(json.dumps(response).encode()), json.loads(response["body"])


def all_pages(api: Api, path: str, key: str, **query: str) -> tuple[list[Any], list[int]]:
    items: list[Any] = []
    sizes: list[int] = []
    cursor: str | None = None
    while True:
        status, size, body = lambda_bytes(api, path, **query, **({"cursor": cursor} if cursor else {}))
        assert status == 200, body
        items += body[key]
        sizes.append(size)
        cursor = body["cursor"]
        if cursor is None:
            return items, sizes
