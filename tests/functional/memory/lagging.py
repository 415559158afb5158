"""A stand-in for OpenSearch Serverless's visibility delay (issue 11.4), in front of osmem-server.

Every write goes to the real index at once — ``GET _doc/<_id>`` is realtime, as in OpenSearch — and is queued
for a shadow copy of the index that every search reads: the shadow applies a write only once ``delay``
seconds have passed on the test's clock, so a search sees the collection as its last refresh left it (a
deleted entry still live, a new one missing). ``delay=0`` is a store that is read-your-writes.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from mneme.adapters.opensearch.http import SignedOpenSearch
from tests.fakes.clock import FixedClock


class _Indices:
    def __init__(self, outer: LaggingClient) -> None:
        self._outer = outer

    def exists(self, index: str) -> bool:
        return bool(self._outer.real.indices.exists(index=index))

    def create(self, index: str, body: dict[str, Any]) -> Any:
        self._outer.real.indices.create(index=self._outer.shadow(index), body=body)
        return self._outer.real.indices.create(index=index, body=body)

    def put_mapping(self, index: str, body: dict[str, Any]) -> Any:
        self._outer.real.indices.put_mapping(index=self._outer.shadow(index), body=body)
        return self._outer.real.indices.put_mapping(index=index, body=body)


class LaggingClient:
    def __init__(self, real: SignedOpenSearch, clock: FixedClock, delay_seconds: float) -> None:
        self.real, self.clock, self.delay = real, clock, timedelta(seconds=delay_seconds)
        self.indices = _Indices(self)
        self._queued: list[tuple[Any, list[dict[str, Any]]]] = []

    @staticmethod
    def shadow(index: str) -> str:
        return f"{index}-searched"

    def bulk(self, body: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.real.bulk(body=body, **kwargs)
        assigned = iter(next(iter(item.values()))["_id"] for item in result.get("items", []))
        mirrored: list[dict[str, Any]] = []
        actions = iter(body)
        for meta in actions:  # index / create / update carry a document line, delete does not
            kind, target = next(iter(meta.items()))
            mirrored.append({kind: {"_index": self.shadow(target["_index"]), "_id": next(assigned)}})
            if kind != "delete":
                mirrored.append(next(actions))
        self._queued.append((self.clock.now(), mirrored))
        return result

    def _catch_up(self) -> None:
        while self._queued and self._queued[0][0] + self.delay <= self.clock.now():
            self.real.bulk(body=self._queued.pop(0)[1])

    def search(self, index: str, body: dict[str, Any], **kwargs: Any) -> Any:
        self._catch_up()
        return self.real.search(index=self.shadow(index), body=body, **kwargs)

    def get(self, index: str, id: str, **kwargs: Any) -> Any:
        return self.real.get(index=index, id=id, **kwargs)
