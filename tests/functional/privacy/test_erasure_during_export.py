"""An export being built while its user's erasure runs: the archive it writes afterwards, and its record marked
ready, must not bring the erased data back (docs/privacy.md, Erasure)."""

from __future__ import annotations

from typing import Any

from mneme.engine.privacy.export import export_prefix
from tests.functional.api.conftest import Api
from tests.support.deps import World


def _erasure_while_the_archive_is_written(api: Api, world: World) -> None:
    """The archive's lines are read (the user's data as it was), then the erasure runs to its receipt, then
    the archive is stored."""
    write = world.exports.write

    def read_erase_store(key: str, lines: Any) -> int:
        held = list(lines)
        world.clock.advance(seconds=2)
        world.privacy_jobs.hold = False
        assert api.delete("/v1/me").status == 200
        return write(key, iter(held))

    world.exports.write = read_erase_store  # type: ignore[method-assign]


def test_an_export_built_across_an_erasure_leaves_no_archive_nor_record(api: Api, world: World) -> None:
    # Given alice's settings and an export of hers the privacy worker has not built yet
    api.put("/v1/me/settings", {"name": "Alice"})
    world.privacy_jobs.hold = True
    export_id = api.post("/v1/me/export", None).body["export_id"]
    # When the worker builds it while her erasure runs to the end
    _erasure_while_the_archive_is_written(api, world)
    world.privacy_jobs.drain()
    # Then neither the archive nor a ready export is left of her
    assert api.get(f"/v1/me/exports/{export_id}").status == 404
    assert world.exports.left_under(export_prefix("alice")) == []


def test_an_export_asked_after_the_erasure_finished_is_built(api: Api, world: World) -> None:
    assert api.delete("/v1/me").status == 200
    world.clock.advance(minutes=5)  # alice came back
    export_id = api.post("/v1/me/export", None).body["export_id"]
    assert api.get(f"/v1/me/exports/{export_id}").body["status"] == "ready"
    assert world.exports.left_under(export_prefix("alice")) != []
