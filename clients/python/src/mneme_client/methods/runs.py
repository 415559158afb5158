"""Runs: start, read, events, cancel, approvals, the caller's list of runs; sync and async."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from functools import partial
from typing import Any

from mneme_client import calls, models
from mneme_client.calls import RunStarted
from mneme_client.transport import AsyncBase, SyncBase, cursor_of

Moment = datetime | str | None


class Runs(SyncBase):
    def start_run(self, agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any) -> RunStarted:
        """``POST /v1/runs``: a finished :class:`RunView` (fast path) or a :class:`RunAcceptedView` (202)."""
        return self.call(calls.start_run(agent_id, text, idempotency_key=idempotency_key, **options))

    def get_run(self, run_id: str) -> models.RunView:
        return self.call(calls.get_run(run_id))

    def run_events(self, run_id: str, **query: Any) -> models.EventsView:
        """One page of a run's events (``after``, ``cursor``, ``wait`` for a long-poll, ``tree``)."""
        return self.call(calls.run_events(run_id, **query))

    def all_events(self, run_id: str, *, tree: bool = False) -> models.EventsView:
        """Every event the run has committed so far, page after page (a tree page's cursor is never null: the
        last page is the one that brought nothing new); the answer's ``cursor`` continues from there."""
        page = self.run_events(run_id, tree=tree)
        events, seen = list(page.events), set[str]()
        while page.cursor and (page.events or not tree) and page.cursor not in seen:  # a repeated cursor: the end
            seen.add(page.cursor)
            page = self.run_events(run_id, cursor=page.cursor, tree=tree)
            events += page.events
        return page.model_copy(update={"events": events})

    def cancel_run(self, run_id: str) -> models.CancelView:
        return self.call(calls.cancel_run(run_id))

    def answer_approval(self, run_id: str, call_id: str, decision: str = "once") -> dict[str, Any]:
        """``decision``: ``once``, ``always`` (remembered for the agent and tool) or ``deny``."""
        return self.call(calls.answer_approval(run_id, call_id, decision))

    def list_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: Moment = None,
        until: Moment = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.RunListView:
        """One page of the caller's root runs, newest first; pass the page's ``cursor`` back for the next."""
        return self.call(
            calls.list_runs(
                status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=limit, cursor=cursor
            )
        )

    def iter_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: Moment = None,
        until: Moment = None,
        page_size: int | None = None,
    ) -> Iterator[models.RunSummaryView]:
        """Every run :meth:`list_runs` would list with these filters, page after page."""
        page = partial(
            _runs_page, status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=page_size
        )
        for answer in self.pages(page, cursor_of):
            yield from answer.runs

    def run_context(self, run_id: str, *, limit: int | None = None, cursor: str | None = None) -> models.RequestsView:
        """One page of the requests the run sent its model (its ``cursor`` for the next page)."""
        return self.call(calls.run_context(run_id, limit=limit, cursor=cursor))

    def iter_run_context(self, run_id: str, *, page_size: int | None = None) -> Iterator[dict[str, Any]]:
        """Every request the run sent its model, in call order, page after page."""
        for page in self.pages(partial(_context_page, run_id, limit=page_size), cursor_of):
            yield from page.requests

    def run_audit(self, run_id: str) -> models.AuditTreeView:
        """The audit records of the run and of the runs it delegated to."""
        return self.call(calls.run_audit(run_id))

    def preview_context(self, agent_id: str, text: str, *, explain: bool = False, **options: Any) -> models.PreviewView:
        """What a run with this input would send its model, without running it (``options``: those of a run)."""
        return self.call(calls.preview_context(agent_id, text, explain=explain, **options))


class AsyncRuns(AsyncBase):
    async def start_run(
        self, agent_id: str, text: str, *, idempotency_key: str | None = None, **options: Any
    ) -> RunStarted:
        return await self.call(calls.start_run(agent_id, text, idempotency_key=idempotency_key, **options))

    async def get_run(self, run_id: str) -> models.RunView:
        return await self.call(calls.get_run(run_id))

    async def run_events(self, run_id: str, **query: Any) -> models.EventsView:
        return await self.call(calls.run_events(run_id, **query))

    async def all_events(self, run_id: str, *, tree: bool = False) -> models.EventsView:
        """Every event the run has committed so far, page after page (a tree page's cursor is never null: the
        last page is the one that brought nothing new); the answer's ``cursor`` continues from there."""
        page = await self.run_events(run_id, tree=tree)
        events, seen = list(page.events), set[str]()
        while page.cursor and (page.events or not tree) and page.cursor not in seen:  # a repeated cursor: the end
            seen.add(page.cursor)
            page = await self.run_events(run_id, cursor=page.cursor, tree=tree)
            events += page.events
        return page.model_copy(update={"events": events})

    async def cancel_run(self, run_id: str) -> models.CancelView:
        return await self.call(calls.cancel_run(run_id))

    async def answer_approval(self, run_id: str, call_id: str, decision: str = "once") -> dict[str, Any]:
        """``decision``: ``once``, ``always`` (remembered for the agent and tool) or ``deny``."""
        return await self.call(calls.answer_approval(run_id, call_id, decision))

    async def list_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: Moment = None,
        until: Moment = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.RunListView:
        return await self.call(
            calls.list_runs(
                status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=limit, cursor=cursor
            )
        )

    async def iter_runs(
        self,
        *,
        status: str | None = None,
        agent_id: str | None = None,
        chat_id: str | None = None,
        since: Moment = None,
        until: Moment = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.RunSummaryView]:
        """As :meth:`Runs.iter_runs`: every matching run, page after page."""
        page = partial(
            _runs_page, status=status, agent_id=agent_id, chat_id=chat_id, since=since, until=until, limit=page_size
        )
        async for answer in self.pages(page, cursor_of):
            for run in answer.runs:
                yield run

    async def run_context(
        self, run_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> models.RequestsView:
        return await self.call(calls.run_context(run_id, limit=limit, cursor=cursor))

    async def iter_run_context(self, run_id: str, *, page_size: int | None = None) -> AsyncIterator[dict[str, Any]]:
        async for page in self.pages(partial(_context_page, run_id, limit=page_size), cursor_of):
            for request in page.requests:
                yield request

    async def run_audit(self, run_id: str) -> models.AuditTreeView:
        return await self.call(calls.run_audit(run_id))

    async def preview_context(
        self, agent_id: str, text: str, *, explain: bool = False, **options: Any
    ) -> models.PreviewView:
        return await self.call(calls.preview_context(agent_id, text, explain=explain, **options))


def _runs_page(cursor: str | None, **filters: Any) -> calls.Call[models.RunListView]:
    return calls.list_runs(cursor=cursor, **filters)


def _context_page(run_id: str, cursor: str | None, *, limit: int | None) -> calls.Call[models.RequestsView]:
    return calls.run_context(run_id, limit=limit, cursor=cursor)
