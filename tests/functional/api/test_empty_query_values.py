"""A query parameter sent empty is taken as absent on every route (SPEC §10 writes its filters as URL templates,
``GET /v1/audit?run_id=&namespace=&action=&limit=&cursor=``): ``?namespace=`` no longer filters on the empty
namespace, hiding every record, while ``?action=`` was a 400."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

NS = "vector.user.alice.notes"


def _records(api: Api, query: dict[str, str]) -> list[dict[str, object]]:
    reply = api.get("/v1/audit", query=query)
    assert reply.status == 200, reply.text
    return list(reply.body["records"])


def test_the_audit_template_with_every_value_empty_lists_every_record(api: Api) -> None:
    api.post("/v1/memory/documents", {"namespace": NS, "content": "Tea at four."})
    everything = _records(api, {})
    assert (
        everything
        and _records(api, dict.fromkeys(("run_id", "namespace", "action", "limit", "cursor"), "")) == everything
    )


@pytest.mark.parametrize("name", ["namespace", "run_id", "action"])
def test_one_empty_audit_filter_filters_nothing(api: Api, name: str) -> None:
    api.post("/v1/memory/documents", {"namespace": NS, "content": "Tea at four."})
    assert _records(api, {name: ""}) == _records(api, {})


def test_a_filter_with_a_value_still_filters(api: Api) -> None:
    api.post("/v1/memory/documents", {"namespace": NS, "content": "Tea at four."})
    assert _records(api, {"namespace": "vector.user.alice.other"}) == []


@pytest.mark.parametrize("name", ["status", "agent_id", "limit", "cursor"])
def test_an_empty_run_list_filter_lists_every_run(api: Api, name: str) -> None:
    api.put("/v1/agents/researcher", AGENT)
    api.post("/v1/runs", {"agent_id": "researcher", "input": "hi"})
    reply = api.get("/v1/runs", query={name: ""})
    assert reply.status == 200 and len(reply.body["runs"]) == 1
