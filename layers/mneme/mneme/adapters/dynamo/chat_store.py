"""ChatStore over an ItemTable (main table).

One partition per chat, ``PK = USER#<user_id>#CHAT#<chat_id>``:

* ``SK = CHAT``: the header — ``data`` (JSON: chat id, user, project, agent, title, created_at) plus the
  mutable top-level attributes ``count`` (stored messages), ``updated_at``, ``summary``,
  ``summary_covers``; and ``GSI1PK = CHATS#<user_id>``, ``GSI1SK = <updated_at>#<chat_id>`` so a user's
  chats list newest first from GSI1.
* ``SK = MSG#<seq:010d>``: one message each (``data`` = the message as JSON), ``seq`` counting from 0; a message
  too large for one item keeps its JSON in ``BLOB#`` part items (:mod:`mneme.adapters.dynamo.item_parts`).

A run reads only what its model will see (:meth:`ItemChatStore.get_chat_tail`): the header and the messages
the summary does not cover, newest first — one query for a short tail (the header sorts before every
message, so it comes last in a descending page). The header records the skills activated in the covered
part (``summary_skills``) so the covered messages never need reading.
With a chat retention set (:mod:`mneme.adapters.dynamo.ttl`) the header carries the TTL attribute from the
chat's creation and each message from when it is written; an expired header hides the whole chat.
Messages can be read lazily, after a given ``seq`` (:meth:`ItemChatStore.iter_messages`), for paging.

An export or an erasure reads a user's chats whole (:meth:`ItemChatStore.iter_owned`): those GSI1 lists and
those named on the user's runs (GSI1 is eventually consistent; a chat just created may be missing there).

Appending is one transaction: the header's ``count`` must equal ``expected_count`` (it is raised by the
number of messages) and every message item must not exist yet, so a retried append fails with Conflict
instead of duplicating, and two writers can never interleave.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from mneme.adapters.dynamo.chat_items import (
    HEADER_FIELDS,
    HEADER_SK,
    LISTING_KEY,
    MAX_MESSAGES_PER_TRANSACTION,
    MESSAGE_JSON,
    MSG_PREFIX,
    READ_PAGE,
    TAIL_PAGE,
    chat_of,
    chat_pk,
    chats_gsi_pk,
    fitting,
    listed_key,
    listing_item,
    message_sk,
    seq_of,
)
from mneme.adapters.dynamo.cursors import decode_cursor, encode_cursor
from mneme.adapters.dynamo.item_parts import CHAT_PARTS, joined, parts_of, split
from mneme.adapters.dynamo.items import (
    PK,
    SK,
    AttrEquals,
    Delete,
    Item,
    ItemTable,
    Put,
    Update,
    WriteOp,
    key_of,
    query_all,
)
from mneme.adapters.dynamo.ttl import Retention, expired, expiry, stamp
from mneme.clock import SystemClock
from mneme.errors import Conflict, NotFound
from mneme.models import Chat, ChatMessage
from mneme.ports.common import Clock, OwnedItem


class ItemChatStore:
    def __init__(self, table: ItemTable, clock: Clock | None = None, *, retention: Retention | None = None) -> None:
        self._table = table
        self._clock = clock or SystemClock()
        self._days = (retention or Retention()).chats_days

    def get_chat(self, user_id: str, chat_id: str, *, messages: bool = True) -> Chat | None:
        """The chat with its messages (``messages=False``: the header alone, one GetItem)."""
        if not messages:
            item = self._table.get(chat_pk(user_id, chat_id), HEADER_SK)
            return None if item is None or self._expired(item) else chat_of(item, [])
        items = query_all(self._table, chat_pk(user_id, chat_id))
        header = next((i for i in items if i[SK] == HEADER_SK), None)
        if header is None or self._expired(header):
            return None
        count = int(header.get("count", 0))
        stored = [
            MESSAGE_JSON.validate_json(joined(self._table, i, CHAT_PARTS, items))
            for i in items
            if i[SK].startswith(MSG_PREFIX) and int(i[SK][len(MSG_PREFIX) :]) < count
        ]
        return chat_of(header, stored)

    def iter_messages(
        self, user_id: str, chat_id: str, *, after: int | None = None
    ) -> Iterator[tuple[int, ChatMessage]]:
        """``(seq, message)`` of the stored messages (those the header counts) after ``after``, in order, read
        as they are consumed; nothing when the chat is absent or expired."""
        pk = chat_pk(user_id, chat_id)
        header = self._table.get(pk, HEADER_SK)
        if header is None or self._expired(header):
            return
        count = int(header.get("count", 0))
        start: dict[str, str] | None = {PK: pk, SK: message_sk(after)} if after is not None else None
        while True:
            page = self._table.query(pk, sk_prefix=MSG_PREFIX, start_key=start, limit=READ_PAGE)
            for item in page.items:
                seq = int(item[SK][len(MSG_PREFIX) :])
                if seq >= count:
                    return
                if not self._expired(item):
                    yield seq, MESSAGE_JSON.validate_json(joined(self._table, item, CHAT_PARTS))
            if page.last_key is None:
                return
            start = page.last_key

    def get_chat_tail(self, user_id: str, chat_id: str, *, since: int | None = None) -> Chat | None:
        """The chat with only its messages from position ``since`` on — by default from the first message
        its summary does not cover (all of them when it has no summary, or one stored before the covered
        skills were recorded). ``first_seq`` says where ``messages`` start."""
        pk = chat_pk(user_id, chat_id)
        page = self._table.query(pk, forward=False, limit=TAIL_PAGE)
        items = list(page.items)
        header = next((i for i in items if i[SK] == HEADER_SK), None) or self._table.get(pk, HEADER_SK)
        if header is None or self._expired(header):
            return None
        count = int(header.get("count", 0))
        covered = int(header.get("summary_covers", 0)) if header.get("summary") and "summary_skills" in header else 0
        start = min(max(0, since if since is not None else covered), count)
        messages = [i for i in items if str(i[SK]).startswith(MSG_PREFIX)]
        ended = any(i[SK] == HEADER_SK for i in items)  # the header sorts first: nothing older is left
        while not ended and page.last_key is not None and (not messages or seq_of(messages[-1]) > start):
            page = self._table.query(pk, forward=False, limit=TAIL_PAGE, start_key=page.last_key)
            messages += [i for i in page.items if str(i[SK]).startswith(MSG_PREFIX)]
            ended = any(i[SK] == HEADER_SK for i in page.items)
        kept = sorted((i for i in messages if start <= seq_of(i) < count and not self._expired(i)), key=seq_of)
        stored = [MESSAGE_JSON.validate_json(joined(self._table, i, CHAT_PARTS)) for i in kept]
        return chat_of(header, stored, first_seq=start)

    def list_chats(self, user_id: str) -> list[Chat]:
        """The user's chats without messages, most recently updated first (GSI1)."""
        return [chat for _, chat in self.iter_chats(user_id)]

    def iter_chats(self, user_id: str, *, after: str | None = None) -> Iterator[tuple[str, Chat]]:
        """``(cursor, chat)`` of the user's chats after ``after`` (a cursor), newest first, read lazily."""
        pk = chats_gsi_pk(user_id)
        start = decode_cursor(after, LISTING_KEY, lambda key: listed_key(key, user_id)) if after else None
        while True:
            page = self._table.query(pk, index="GSI1", forward=False, limit=READ_PAGE, start_key=start)
            for item in page.items:
                if not self._expired(item):
                    yield encode_cursor(key_of(item, self._table.schema, "GSI1")), chat_of(item, [])
            if page.last_key is None:
                return
            start = page.last_key

    def _expired(self, item: Item) -> bool:
        return expired(item, self._clock.now())

    def _expiry_now(self) -> int | None:
        return expiry(self._clock.now(), self._days)

    def create_chat(self, chat: Chat) -> None:
        pk = chat_pk(chat.user_id, chat.chat_id)
        header: Item = {
            PK: pk,
            SK: HEADER_SK,
            "data": chat.model_dump_json(include=HEADER_FIELDS),
            "count": 0,
            "summary_covers": chat.summary_covers,
            **listing_item(chat.user_id, chat.chat_id, chat.updated_at),
        }
        stamp(header, expiry(chat.created_at, self._days))
        if chat.summary is not None:
            header["summary"] = chat.summary
        encoded = [MESSAGE_JSON.dump_json(m).decode() for m in chat.messages]
        first = fitting(encoded) if encoded else 0
        header["count"] = first
        self._table.transact([Put(header, "not_exists"), *self._message_puts(pk, 0, encoded[:first])])
        if len(chat.messages) > first:
            self.append_messages(chat.user_id, chat.chat_id, chat.messages[first:], expected_count=first)

    def append_messages(
        self, user_id: str, chat_id: str, messages: Sequence[ChatMessage], *, expected_count: int
    ) -> None:
        """Append after exactly ``expected_count`` messages (Conflict otherwise; NotFound without chat).
        More than one transaction takes (99 messages, 4 MB) are written in consecutive transactions, each
        conditional on the count."""
        pk = chat_pk(user_id, chat_id)
        count = expected_count
        encoded = [MESSAGE_JSON.dump_json(m).decode() for m in messages]
        while encoded:
            n = fitting(encoded)
            batch, encoded = encoded[:n], encoded[n:]
            values: Item = {"count": count + len(batch), **listing_item(user_id, chat_id, self._clock.now())}
            ops: list[WriteOp] = [Update(pk, HEADER_SK, values, AttrEquals("count", count))]
            try:
                self._table.transact([*ops, *self._message_puts(pk, count, batch)])
            except Conflict:
                header = self._table.get(pk, HEADER_SK)
                if header is None:
                    raise NotFound(f"chat {chat_id!r} not found", field="chat_id") from None
                raise Conflict(
                    f"chat {chat_id!r} holds {header.get('count')} messages, expected {count}",
                    details={"count": header.get("count")},
                ) from None
            count += len(batch)

    def take_back(self, user_id: str, chat_id: str, *, first: int, count: int, created: bool) -> bool:
        """Newest messages first, at most 99 per transaction, each conditional on the count it finds; the
        header of a chat created with them is deleted in the last one."""
        pk = chat_pk(user_id, chat_id)
        end = first + count
        while end > first:
            start = max(first, end - MAX_MESSAGES_PER_TRANSACTION)
            header: WriteOp = (
                Delete(pk, HEADER_SK, AttrEquals("count", end))
                if created and start == 0
                else Update(pk, HEADER_SK, {"count": start}, AttrEquals("count", end))
            )
            try:
                self._table.transact([header, *(Delete(pk, message_sk(seq)) for seq in range(start, end))])
            except Conflict:
                return False
            self._table.delete_many(parts_of(self._table, pk, CHAT_PARTS, range(start, end)))
            end = start
        return True

    def set_summary(
        self, user_id: str, chat_id: str, summary: str, covers: int, covered_skills: Sequence[str] = ()
    ) -> None:
        try:
            self._table.update(
                chat_pk(user_id, chat_id),
                HEADER_SK,
                {"summary": summary, "summary_covers": covers, "summary_skills": list(covered_skills)},
                condition="exists",
            )
        except Conflict:
            raise NotFound(f"chat {chat_id!r} not found", field="chat_id") from None

    def delete_chat(self, user_id: str, chat_id: str) -> bool:
        """Delete the messages, then the header (a failure half-way leaves a chat that can be deleted
        again, never orphaned messages without a header)."""
        pk = chat_pk(user_id, chat_id)
        items = query_all(self._table, pk)
        self._table.delete_many([(pk, i[SK]) for i in items if i[SK] != HEADER_SK])
        return self._table.delete(pk, HEADER_SK)

    # ------------------------------------------------------------------------------------- privacy
    def _owned_chats(self, user_id: str, chat_ids: Sequence[str]) -> Iterator[list[Item]]:
        listed = query_all(self._table, chats_gsi_pk(user_id), index="GSI1")
        known = [str(json.loads(item["data"])["chat_id"]) for item in listed]
        for chat_id in dict.fromkeys([*known, *chat_ids]):
            items = query_all(self._table, chat_pk(user_id, chat_id))
            if items:
                yield items

    def iter_owned(
        self, user_id: str, chat_ids: Sequence[str] = (), *, include_expired: bool = False
    ) -> Iterator[OwnedItem]:
        """Each chat's header (with its summary) and its messages, as stored."""
        for items in self._owned_chats(user_id, chat_ids):
            header = next((i for i in items if i[SK] == HEADER_SK), None)
            if not include_expired and (header is None or self._expired(header)):
                continue
            for item in items:
                if (not include_expired and self._expired(item)) or str(item[SK]).startswith(CHAT_PARTS):
                    continue
                key = f"{item[PK]}|{item[SK]}"
                if item[SK] == HEADER_SK:
                    yield OwnedItem("chat", key, chat_of(item, []).model_dump(mode="json", exclude={"messages"}))
                else:
                    data = json.loads(joined(self._table, item, CHAT_PARTS, items))
                    yield OwnedItem("message", key, {"seq": seq_of(item), **data})

    def erase_owned(self, user_id: str, chat_ids: Sequence[str] = ()) -> dict[str, int]:
        counts = {"chat": 0, "message": 0}
        for items in self._owned_chats(user_id, chat_ids):
            pk = str(items[0][PK])
            self._table.delete_many([(pk, str(i[SK])) for i in items if i[SK] != HEADER_SK])
            self._table.delete(pk, HEADER_SK)
            for item in items:
                if not str(item[SK]).startswith(CHAT_PARTS):
                    counts["chat" if item[SK] == HEADER_SK else "message"] += 1
        return counts

    def _message_puts(self, pk: str, first_seq: int, encoded: Sequence[str]) -> list[WriteOp]:
        """The puts of new messages, each given as its stored JSON; the parts of a large one are written now."""
        expires_at = self._expiry_now()
        puts: list[WriteOp] = []
        for seq, data in enumerate(encoded, start=first_seq):
            content, parts = split(pk, CHAT_PARTS, f"{seq:010d}", data, expires_at)
            if parts:
                self._table.put_many(parts)
            puts.append(Put(stamp({PK: pk, SK: message_sk(seq), **content}, expires_at), "not_exists"))
        return puts
