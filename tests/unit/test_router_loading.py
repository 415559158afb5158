"""Which router modules a request's path loads (mneme.api.app includes them on demand by mneme.cold_start's map)."""

from __future__ import annotations

import pytest

from mneme.api.app import create_app
from mneme.cold_start import ROUTERS


@pytest.mark.parametrize(
    ("path", "included"),
    [
        ("/v1/runs", ["run_routes"]),  # starting a run: its router alone
        ("/v1/runs/run-1", ["run_routes", "run_detail_routes"]),
        ("/v1/runs/run-1/events", ["run_routes", "run_detail_routes"]),
        ("/v1/context/preview", ["run_detail_routes"]),
        ("/v1/agents", ["config_routes"]),
        ("/v1/health", []),
    ],
)
def test_a_path_loads_the_routers_that_serve_it(path: str, included: list[str]) -> None:
    app = create_app(lazy=True)
    app.include_for(path)
    assert app.included == included


def test_a_path_no_router_claims_loads_them_all() -> None:
    app = create_app(lazy=True)
    app.include_for("/v1/unknown")
    assert sorted(app.included) == sorted(ROUTERS)


def test_every_route_of_the_runs_segment_is_served_once_both_routers_are_in() -> None:
    app = create_app(lazy=True)
    app.include_for("/v1/runs/run-1")
    paths = {(route.method, route.openapi_path) for route in app._static_routes + app._dynamic_routes}
    assert ("POST", "/v1/runs") in paths
    assert ("GET", "/v1/runs/{run_id}") in paths
    assert ("POST", "/v1/runs/{run_id}/approvals") in paths
