"""The one composition of the DynamoDB-shaped stores over two item tables, used by every composition root
(AWS, local mode, the tests and the benchmarks): config, chats and runs share the main table; the audit log
has its own table. Export records and erasure states (the privacy ledger) live in the main table too."""

from __future__ import annotations

from typing import TypedDict

from mneme.adapters.dynamo.approval_grants import ItemApprovalGrants
from mneme.adapters.dynamo.audit_log import ItemAuditLog
from mneme.adapters.dynamo.chat_store import ItemChatStore
from mneme.adapters.dynamo.config_revisions import ItemConfigRevisions
from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.adapters.dynamo.counters import ItemRateLimiter, ItemTreeLedger
from mneme.adapters.dynamo.items import ItemTable
from mneme.adapters.dynamo.privacy_ledger import ItemPrivacyLedger
from mneme.adapters.dynamo.run_store import ItemRunStore
from mneme.adapters.dynamo.ttl import Retention
from mneme.ports.audit import AuditLog
from mneme.ports.common import Clock
from mneme.ports.privacy import PrivacyLedger
from mneme.ports.runs import ApprovalGrants, RateLimiter, RunStore, TreeLedger
from mneme.ports.stores import ChatStore, ConfigRevisions, ConfigStore
from mneme.records import Record
from mneme.settings import Settings


class StorePorts(TypedDict):
    """The stores as the keyword arguments of :class:`mneme.engine.deps.Deps`."""

    config: ConfigStore
    config_revisions: ConfigRevisions
    chats: ChatStore
    runs: RunStore
    audit: AuditLog
    ledger: TreeLedger
    rates: RateLimiter
    grants: ApprovalGrants
    privacy_ledger: PrivacyLedger


class Stores(Record):
    config: ItemConfigStore
    config_revisions: ItemConfigRevisions
    chats: ItemChatStore
    runs: ItemRunStore
    audit: ItemAuditLog
    ledger: ItemTreeLedger
    rates: ItemRateLimiter
    grants: ItemApprovalGrants
    privacy_ledger: ItemPrivacyLedger

    def ports(self) -> StorePorts:
        return {
            "config": self.config,
            "config_revisions": self.config_revisions,
            "chats": self.chats,
            "runs": self.runs,
            "audit": self.audit,
            "ledger": self.ledger,
            "rates": self.rates,
            "grants": self.grants,
            "privacy_ledger": self.privacy_ledger,
        }


def retention_of(settings: Settings) -> Retention:
    """The stores' retention (the main table's TTL) from the settings; every composition root uses it."""
    return Retention(
        chats_days=settings.retention_days_chats,
        runs_days=settings.retention_days_runs,
        requests_days=settings.retention_days_requests,
    )


def stores_over(main: ItemTable, audit: ItemTable, clock: Clock, retention: Retention | None = None) -> Stores:
    return Stores(
        config=ItemConfigStore(main),
        config_revisions=ItemConfigRevisions(main),
        chats=ItemChatStore(main, clock, retention=retention),
        runs=ItemRunStore(main, retention=retention, clock=clock),
        audit=ItemAuditLog(audit),
        ledger=ItemTreeLedger(main, retention),
        rates=ItemRateLimiter(main),
        grants=ItemApprovalGrants(main),
        privacy_ledger=ItemPrivacyLedger(main, clock),
    )
