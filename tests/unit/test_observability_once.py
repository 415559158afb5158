"""The Powertools objects are created once, even when threads ask for them at the same moment."""

from __future__ import annotations

import threading

from mneme import observability


def test_threads_asking_for_the_logger_at_once_get_one_instance_and_no_error() -> None:
    # Given no logger yet and eight threads released together (the threaded local server's first requests)
    observability.logger.cache_clear()
    barrier = threading.Barrier(8)
    got: list[object] = []
    errors: list[BaseException] = []

    def ask() -> None:
        barrier.wait()
        try:
            observability.start_invocation()
            got.append(observability.logger())
        except BaseException as exc:  # the race surfaced as AttributeError inside Powertools
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then nobody failed and everybody holds the same logger
    assert errors == []
    assert len(got) == 8 and len({id(item) for item in got}) == 1


def test_the_logger_is_created_once_and_kept() -> None:
    assert observability.logger() is observability.logger()
