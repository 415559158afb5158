"""Issue 12.10: runs a user may start per minute over the API (a fixed window), 429 with ``Retry-After``."""

from __future__ import annotations

import pytest

from mneme.adapters.models.offline import OfflineModel
from tests.functional.api.conftest import Api, add_agent
from tests.support.deps import World, make_world


@pytest.fixture
def world() -> World:
    world = make_world(OfflineModel(), MNEME_RUNS_PER_USER_PER_MINUTE="3")
    add_agent(world, "master")
    add_agent(world, "master", owner="bob")
    return world


def _post(api: Api, user: str = "alice", **headers: str) -> int:
    return api.post("/v1/runs", {"agent_id": "master", "input": "hello"}, user=user, headers=headers).status


def test_the_fourth_run_in_a_minute_is_a_429_with_retry_after(api: Api, world: World) -> None:
    # Given the clock 20 s into a minute
    world.clock.at = world.clock.at.replace(second=20, microsecond=0)
    assert [_post(api) for _ in range(3)] == [200, 200, 200]
    # When alice starts a fourth run in the same minute
    reply = api.post("/v1/runs", {"agent_id": "master", "input": "hello"})
    # Then it is refused with the seconds left in the window, and no run was started
    assert reply.status == 429
    assert reply.body["error"] == "rate_limited"
    assert reply.headers["retry-after"] == "40"
    assert "3 runs" in reply.body["message"]


def test_the_next_minute_allows_runs_again(api: Api, world: World) -> None:
    for _ in range(3):
        _post(api)
    world.clock.advance(seconds=60)
    assert _post(api) == 200


def test_each_user_has_their_own_window(api: Api) -> None:
    for _ in range(3):
        _post(api)
    assert _post(api) == 429
    assert _post(api, user="bob") == 200


def test_a_retry_of_a_started_run_is_not_counted(api: Api) -> None:
    # Given one run started with a key, and two more runs
    assert _post(api, **{"Idempotency-Key": "k1"}) == 200
    assert [_post(api), _post(api)] == [200, 200]
    # When the first request is retried with its key, the window being full
    # Then it answers the run it started instead of a 429
    assert _post(api, **{"Idempotency-Key": "k1"}) == 200
    assert _post(api) == 429


def test_a_limit_of_0_means_no_limit() -> None:
    world = make_world(OfflineModel(), MNEME_RUNS_PER_USER_PER_MINUTE="0")
    add_agent(world, "master")
    api = Api(world)
    assert {_post(api) for _ in range(10)} == {200}


def test_a_run_refused_by_the_limit_stored_nothing(api: Api, world: World) -> None:
    from tests.functional.api.conftest import stored_runs

    for _ in range(3):
        _post(api)
    before = stored_runs(world)
    assert _post(api) == 429
    assert stored_runs(world) == before


class _Recording:
    """Wraps a port: every method call goes through, and ``hook`` is called first with the method's name."""

    def __init__(self, inner: object, hook: object) -> None:
        self._inner, self._hook = inner, hook

    def __getattr__(self, name: str) -> object:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def call(*args: object, **kwargs: object) -> object:
            self._hook(name)  # type: ignore[operator]
            return attribute(*args, **kwargs)

        return call


def test_the_start_is_counted_while_the_config_is_read(api: Api, world: World) -> None:
    import threading

    # Given a counter that waits (up to 5 s) for the run's config read to have begun
    config_read = threading.Event()
    overlapped: list[bool] = []
    world.deps.config = _Recording(world.deps.config, lambda name: config_read.set())  # type: ignore[assignment]
    world.deps.rates = _Recording(  # type: ignore[assignment]
        world.deps.rates, lambda name: overlapped.append(config_read.wait(5)) if name == "hit" else None
    )
    # When alice starts a run
    assert _post(api) == 200
    # Then the count did not wait for the config read, nor the config read for the count
    assert overlapped == [True]


def test_a_refused_start_is_a_429_even_for_an_agent_that_does_not_exist(api: Api) -> None:
    for _ in range(3):
        _post(api)
    reply = api.post("/v1/runs", {"agent_id": "nobody", "input": "hello"})
    assert reply.status == 429 and reply.body["error"] == "rate_limited"


def test_an_unknown_agent_within_the_limit_is_a_404(api: Api) -> None:
    reply = api.post("/v1/runs", {"agent_id": "nobody", "input": "hello"})
    assert reply.status == 404
