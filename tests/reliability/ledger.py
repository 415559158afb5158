"""Every run store the reliability tier used, so the tier can end by listing their runs (issue 12).

Tests register the worlds (in-memory stores) and local servers (SQLite data folders) they create;
``test_zz_no_run_left_unfinished.py`` runs last and asserts that every run in each is final or waits, as
it legitimately may, for a person's approval.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from mneme.models.run import Run
from tests.support.deps import World


class Ledger:
    def __init__(self) -> None:
        self._sources: list[tuple[str, Callable[[], list[Run]]]] = []
        self._lock = threading.Lock()

    def world(self, label: str, world: World) -> World:
        """Track an in-memory world; answers it."""
        with self._lock:
            self._sources.append((label, world.deps.runs.list_unfinished))
        return world

    def data_dir(self, label: str, data_dir: Path) -> Path:
        """Track the SQLite stores of a local server's data folder (read after the server stopped)."""

        def unfinished() -> list[Run]:
            from mneme.adapters.dynamo.run_store import ItemRunStore
            from mneme_local.sqlite_items import open_local_tables

            main, audit = open_local_tables(data_dir)
            try:
                return ItemRunStore(main).list_unfinished()
            finally:
                main.close()
                audit.close()

        with self._lock:
            self._sources.append((label, unfinished))
        return data_dir

    def sources(self) -> list[tuple[str, Callable[[], list[Run]]]]:
        with self._lock:
            return list(self._sources)


LEDGER = Ledger()
