"""The configuration and chat store ports (SPEC §2, §10).

Each port has an AWS adapter (``mneme.adapters``), an embedded local adapter (``mneme_local``) and an
in-memory fake (``tests/fakes``, never shipped). The core only ever sees these Protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mneme.models import (
    Agent,
    Chat,
    ChatMessage,
    Skill,
    Task,
    UserSettings,
)
from mneme.ports.common import OwnedItem
from mneme.records import Record

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from typing_extensions import Unpack

    from mneme.models.config_revision import ConfigRef, ConfigRevisionPage, RevisionArgs
    from mneme.models.precondition import Precondition


class ConfigRevisions(Protocol):
    """The revisions of agents, tasks and skills the configuration store keeps with each save and delete."""

    def history(self, owner: str, ref: ConfigRef, *, limit: int, cursor: str | None) -> ConfigRevisionPage:
        """The resource's revisions, newest first (``cursor``: the previous page's; InvalidInput if not one)."""
        ...

    def reattribute(self, user_id: str, to: str) -> int:
        """Name ``to`` instead of ``user_id`` as the author of every revision of a global resource (an erased
        admin's); how many it changed (none the second time)."""
        ...

    def authored(self, user_id: str) -> int:
        """How many revisions of global resources name ``user_id`` as their author."""
        ...


class RunConfig(Record):
    """What a run needs from the configuration, loaded together (``ConfigStore.load_run_config``)."""

    settings: UserSettings  # the defaults when the user saved none
    agent: Agent  # the user's own agent, else the global one of that id
    task: Task | None  # the named task, else the agent's default task (None when it has none)
    skills: dict[str, Skill]  # the agent's skills that exist, by name, in the agent's order


class ConfigStore(Protocol):
    """User settings, agents, tasks and skills. ``owner`` is a user id or ``GLOBAL_OWNER``."""

    def get_settings(self, user_id: str) -> UserSettings | None: ...
    def put_settings(self, user_id: str, settings: UserSettings, *, precondition: Precondition | None = None) -> None:
        """Write (replace) the item; with a precondition, only if it holds for the entity tag a GET of the same
        URL showed (:mod:`mneme.models.precondition`), else PreconditionFailed and nothing is written."""
        ...

    def get_agent(self, owner: str, agent_id: str) -> Agent | None: ...
    def list_agents(self, owner: str) -> list[Agent]: ...
    def put_agent(
        self, agent: Agent, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None:
        """``revision_at``: keep the save as a revision made then (:class:`ConfigRevisions`), in the same write, by
        ``revision_by``."""
        ...

    def delete_agent(
        self,
        owner: str,
        agent_id: str,
        *,
        precondition: Precondition | None = None,
        **revision: Unpack[RevisionArgs],
    ) -> bool: ...

    def get_task(self, owner: str, agent_id: str, task_id: str) -> Task | None: ...
    def list_tasks(self, owner: str, agent_id: str) -> list[Task]: ...
    def put_task(
        self, task: Task, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None: ...
    def delete_task(
        self,
        owner: str,
        agent_id: str,
        task_id: str,
        *,
        precondition: Precondition | None = None,
        **revision: Unpack[RevisionArgs],
    ) -> bool: ...

    def get_skills(self, owner: str, names: Sequence[str]) -> list[Skill]: ...
    def list_skills(self, owner: str) -> list[Skill]: ...
    def put_skill(
        self, skill: Skill, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> None: ...
    def delete_skill(
        self, owner: str, name: str, *, precondition: Precondition | None = None, **revision: Unpack[RevisionArgs]
    ) -> bool: ...

    def find_agent(self, user_id: str, agent_id: str) -> Agent | None:
        """The user's own agent of that id, else the global one (the one visibility rule)."""
        ...

    def visible_agents(self, user_id: str) -> list[Agent]:
        """The user's agents and the global ones they do not shadow, sorted by id."""
        ...

    def find_skill(self, user_id: str, name: str) -> Skill | None: ...
    def visible_skills(self, user_id: str) -> list[Skill]: ...

    def load_run_config(
        self, user_id: str, agent_id: str, task_id: str | None, *, default_task: bool = True
    ) -> RunConfig:
        """Settings, agent (own, else global), task and skills in one batch read (a second one only for
        the skills / default task the agent names). Without a task id the agent's ``default_task_id``
        applies, else its only task when it has exactly one — unless ``default_task`` is False (a run
        that started without a task keeps running without one: nothing is looked up for it). Raise
        NotFound (field ``agent_id`` / ``task_id``) when the agent, or a task named explicitly, does not
        exist."""
        ...

    def iter_owned(self, user_id: str) -> Iterator[OwnedItem]:
        """Everything in the user's configuration partition: settings, agents, tasks, skills, exports."""
        ...

    def erase_owned(self, user_id: str) -> dict[str, int]:
        """Delete the user's configuration partition; answers the items deleted by kind."""
        ...


class ChatStore(Protocol):
    def get_chat(self, user_id: str, chat_id: str, *, messages: bool = True) -> Chat | None:
        """The chat (None when absent or expired); ``messages=False`` reads the header alone."""
        ...

    def get_chat_tail(self, user_id: str, chat_id: str, *, since: int | None = None) -> Chat | None:
        """The chat with its messages from position ``since`` on (default: the first one its summary does
        not cover); ``Chat.first_seq`` says where they start. Reads nothing before that position."""
        ...

    def iter_messages(
        self, user_id: str, chat_id: str, *, after: int | None = None
    ) -> Iterator[tuple[int, ChatMessage]]:
        """``(seq, message)`` of the chat's messages after ``seq`` ``after``, in order, read lazily (paging)."""
        ...

    def list_chats(self, user_id: str) -> list[Chat]:
        """The user's chats without their messages, newest first."""
        ...

    def iter_chats(self, user_id: str, *, after: str | None = None) -> Iterator[tuple[str, Chat]]:
        """``(cursor, chat)`` of the user's chats without their messages, newest first, read lazily, from
        the one after ``after`` (a cursor it gave; InvalidInput for any other, another user's included)."""
        ...

    def create_chat(self, chat: Chat) -> None:
        """Raise Conflict when the chat exists."""
        ...

    def append_messages(
        self, user_id: str, chat_id: str, messages: Sequence[ChatMessage], *, expected_count: int
    ) -> None:
        """Append after exactly ``expected_count`` stored messages (Conflict otherwise), so a retried step
        never duplicates messages and two writers never interleave."""
        ...

    def take_back(self, user_id: str, chat_id: str, *, first: int, count: int, created: bool) -> bool:
        """Remove the ``count`` messages stored from position ``first`` while they are still the chat's last
        (a step whose run was cancelled before its commit, or crashed); a chat ``created`` with them goes too.
        False, and nothing changed, when the chat has moved on (or is gone)."""
        ...

    def set_summary(
        self, user_id: str, chat_id: str, summary: str, covers: int, covered_skills: Sequence[str] = ()
    ) -> None:
        """Store the rolling summary, the count of messages it covers and the skills activated in them."""
        ...

    def delete_chat(self, user_id: str, chat_id: str) -> bool: ...

    def iter_owned(
        self, user_id: str, chat_ids: Sequence[str] = (), *, include_expired: bool = False
    ) -> Iterator[OwnedItem]:
        """The user's chats (headers with their summaries) and messages: those the chat index lists and
        ``chat_ids`` (found elsewhere, e.g. on the user's runs)."""
        ...

    def erase_owned(self, user_id: str, chat_ids: Sequence[str] = ()) -> dict[str, int]:
        """Delete the user's chats (those listed and ``chat_ids``); answers the items deleted by kind."""
        ...
