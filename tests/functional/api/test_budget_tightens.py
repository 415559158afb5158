"""Issue 31.4: a request's ``budget`` only tightens the budget of the agent it runs (an admin's on a global
agent) and the deployment's — never loosens it — through ``POST /v1/runs``."""

from __future__ import annotations

from tests.functional.api.conftest import Api

HELPDESK = {"label": "Helpdesk", "global": True, "budget": {"max_runs": 2, "max_model_calls": 3}}


def test_a_requests_looser_budget_cannot_raise_an_admins_budget_on_a_global_agent(api: Api) -> None:
    # Given an admin's global agent limited to 2 runs and 3 model calls
    assert api.put("/v1/agents/helpdesk", HELPDESK, user="root", admin=True).status == 200
    # When alice runs it asking for 40 runs and 400 model calls
    reply = api.post(
        "/v1/runs", {"agent_id": "helpdesk", "input": "hi", "budget": {"max_runs": 40, "max_model_calls": 400}}
    )
    # Then the admin's limits hold
    assert reply.status == 200
    budget = api.get(f"/v1/runs/{reply.body['run_id']}").body["budget"]
    assert (budget["max_runs"], budget["max_model_calls"]) == (2, 3)


def test_a_requests_tighter_budget_lowers_the_agents(api: Api) -> None:
    assert api.put("/v1/agents/helpdesk", HELPDESK, user="root", admin=True).status == 200
    reply = api.post("/v1/runs", {"agent_id": "helpdesk", "input": "hi", "budget": {"max_runs": 1, "max_tokens": 50}})
    budget = api.get(f"/v1/runs/{reply.body['run_id']}").body["budget"]
    assert (budget["max_runs"], budget["max_model_calls"], budget["max_tokens"]) == (1, 3, 50)
