"""``mneme chats show`` prints every message of a chat: the API answers a chat's messages a page at a time (100 by
default), and the command printed the first page alone — 100 of a chat's 102 messages, with nothing to say that
more followed and no option to ask for them."""

from __future__ import annotations

import io
import json
import uuid

import pytest

from mneme_client import Client, cli, local_token
from tests.functional.local.support import LocalServer


def test_chats_show_prints_every_page_of_messages(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    token = local_token(f"cli-{uuid.uuid4().hex[:8]}", folder=str(server.data_dir))
    with Client(server.base, token) as client:
        client.put_agent("helper", {"label": "Helper"})
        for number in range(51):  # 102 messages: a user turn and an answer each
            client.start_run("helper", f"message {number}", chat_id="long-chat")
    monkeypatch.setenv("MNEME_URL", server.base)
    monkeypatch.setenv("MNEME_TOKEN", token)
    out = io.StringIO()
    assert cli.main(["chats", "show", "long-chat"], out=out) == 0
    shown = json.loads(out.getvalue())
    assert len(shown["messages"]) == 102 and shown["cursor"] is None
    assert [m["text"] for m in shown["messages"][-2:]] == ["message 50", "offline: message 50"]
