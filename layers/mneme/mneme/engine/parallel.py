"""A small shared thread pool for independent I/O of one run (loading config while embedding the query).

boto3 clients and the stores are thread-safe; the pool is created on first use, never at import.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="mneme-io")


def submit(function: Callable[..., T], *args: Any) -> Future[T]:
    return _pool().submit(function, *args)
