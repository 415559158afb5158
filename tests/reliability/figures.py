"""The figures the reliability tier prints at the end of a session (``docs/reliability.md`` quotes them)."""

from __future__ import annotations

import threading
from collections import Counter


class Figures:
    """Named counters, shared by every test of the session (thread-safe)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, name: str, count: int = 1) -> None:
        with self._lock:
            self._counts[name] += count

    def set(self, name: str, value: str) -> None:
        with self._lock:
            self._values[name] = value

    def get(self, name: str) -> int:
        with self._lock:
            return self._counts[name]

    def lines(self) -> list[str]:
        with self._lock:
            out = [f"{name}: {count}" for name, count in sorted(self._counts.items())]
            out += [f"{name}: {value}" for name, value in sorted(self._values.items())]
        return out


FIGURES = Figures()
