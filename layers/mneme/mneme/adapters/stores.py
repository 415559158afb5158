"""The one composition of the DynamoDB-shaped stores over two item tables, used by every composition root
(AWS, local mode, the tests and the benchmarks): config, chats and runs share the main table; the audit log
has its own table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from mneme.adapters.audit_log import ItemAuditLog
from mneme.adapters.chat_store import ItemChatStore
from mneme.adapters.config_store import ItemConfigStore
from mneme.adapters.items import ItemTable
from mneme.adapters.run_store import ItemRunStore
from mneme.ports import AuditLog, ChatStore, Clock, ConfigStore, RunStore


class StorePorts(TypedDict):
    """The stores as the keyword arguments of :class:`mneme.engine.deps.Deps`."""

    config: ConfigStore
    chats: ChatStore
    runs: RunStore
    audit: AuditLog


@dataclass(frozen=True)
class Stores:
    config: ItemConfigStore
    chats: ItemChatStore
    runs: ItemRunStore
    audit: ItemAuditLog

    def ports(self) -> StorePorts:
        return {"config": self.config, "chats": self.chats, "runs": self.runs, "audit": self.audit}


def stores_over(main: ItemTable, audit: ItemTable, clock: Clock) -> Stores:
    return Stores(
        config=ItemConfigStore(main),
        chats=ItemChatStore(main, clock),
        runs=ItemRunStore(main),
        audit=ItemAuditLog(audit),
    )
