"""The chat items of the main table: their keys, page sizes and the chat they read back as (SPEC §10)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from mneme.adapters.dynamo.item_size import MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES
from mneme.adapters.dynamo.items import PK, SK, Item
from mneme.models import Chat, ChatMessage
from mneme.spec_limits import SUMMARY_TRIGGER_MESSAGES

HEADER_SK = "CHAT"
MSG_PREFIX = "MSG#"
#: a DynamoDB transaction holds at most 100 writes: the header update + 99 messages.
MAX_MESSAGES_PER_TRANSACTION = 99
#: ... and at most 4 MB of items: the messages of one take what the header (an item, <= 400 KB) leaves
MESSAGE_BYTES_PER_TRANSACTION = MAX_TRANSACTION_BYTES - MAX_ITEM_BYTES
#: a message item's bytes besides its JSON: the key and attribute names, the key values, the TTL
MESSAGE_ITEM_OVERHEAD = 512
#: items read per query while iterating messages lazily
READ_PAGE = 50

MESSAGE_JSON = TypeAdapter[ChatMessage](ChatMessage)
HEADER_FIELDS = {"chat_id", "user_id", "project_id", "agent_id", "title", "created_at"}


def chat_pk(user_id: str, chat_id: str) -> str:
    return f"USER#{user_id}#CHAT#{chat_id}"


def chats_gsi_pk(user_id: str) -> str:
    return f"CHATS#{user_id}"


#: the attributes of a chat list's cursor (GSI1's start key: the header's keys and its listing keys)
LISTING_KEY = (PK, SK, "GSI1PK", "GSI1SK")


def listed_key(key: dict[str, str], user_id: str) -> bool:
    """Whether a cursor's key is a header on ``user_id``'s chat list (any other is refused, never read)."""
    own_header = key[PK].startswith(chat_pk(user_id, "")) and key[SK] == HEADER_SK
    return own_header and key["GSI1PK"] == chats_gsi_pk(user_id)


def message_sk(seq: int) -> str:
    return f"{MSG_PREFIX}{seq:010d}"


def iso_time(at: datetime) -> str:
    return at.isoformat()


def listing_item(user_id: str, chat_id: str, updated_at: datetime) -> dict[str, str]:
    return {
        "GSI1PK": chats_gsi_pk(user_id),
        "GSI1SK": f"{iso_time(updated_at)}#{chat_id}",
        "updated_at": iso_time(updated_at),
    }


def chat_of(item: Item, messages: list[Any], first_seq: int = 0) -> Chat:
    fields: dict[str, Any] = {
        "updated_at": item["updated_at"],
        "summary": item.get("summary"),
        "summary_covers": item.get("summary_covers", 0),
        "summary_skills": item.get("summary_skills"),
        "messages": messages,
        "first_seq": first_seq,
    }
    return Chat.model_validate({**json.loads(item["data"]), **fields})


def seq_of(item: Item) -> int:
    return int(str(item[SK])[len(MSG_PREFIX) :])


#: items per page of a tail read: past the message trigger a chat is summarized, so one page normally
#: holds its whole uncovered tail (and, for a short chat, the header too)
TAIL_PAGE = SUMMARY_TRIGGER_MESSAGES + 1


def fitting(encoded: list[str]) -> int:
    """How many of the leading messages (as their stored JSON) one transaction takes beside the header: at most
    99, and no more bytes than DynamoDB's 4 MB leaves (a chat turn of many long tool results used to go in one
    transaction, refused on AWS, and the run failed after its model had answered). At least one."""
    size = 0
    for n, text in enumerate(encoded[:MAX_MESSAGES_PER_TRANSACTION]):
        size += len(text.encode("utf-8", "surrogatepass")) + MESSAGE_ITEM_OVERHEAD
        if size > MESSAGE_BYTES_PER_TRANSACTION:
            return max(n, 1)
    return min(len(encoded), MAX_MESSAGES_PER_TRANSACTION)
