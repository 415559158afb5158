"""Page sizes the API takes are the client's to choose too: a chat's messages (``get_chat(limit=)``) and a run's
events (``run_events(limit=)``), against a real local server (sync and async)."""

from __future__ import annotations

import asyncio
import uuid

from mneme_client import AsyncClient, Client, local_token
from tests.functional.local.support import LocalServer


def test_a_chat_is_read_a_chosen_number_of_messages_at_a_time(server: LocalServer) -> None:
    token = local_token(f"pages-{uuid.uuid4().hex[:8]}", folder=server.data_dir)
    with Client(server.base, token) as client:
        client.put_agent("helper", {"label": "Helper"})
        for number in range(2):
            client.start_run("helper", f"message {number}", chat_id="short-chat")
        first = client.get_chat("short-chat", limit=3)
        rest = client.get_chat("short-chat", limit=3, cursor=first.cursor)
        assert (len(first.messages), len(rest.messages), rest.cursor) == (3, 1, None)
        assert len(client.get_chat("short-chat").messages) == 4
        run = client.start_run("helper", "/search apollo")
        events = client.run_events(run.run_id, limit=2)
        assert len(events.events) == 2 and events.cursor is not None

    async def scenario() -> tuple[int, int]:
        async with AsyncClient(server.base, token) as aclient:
            page = await aclient.get_chat("short-chat", limit=1)
            return len(page.messages), len((await aclient.run_events(run.run_id, limit=1)).events)

    assert asyncio.run(scenario()) == (1, 1)
