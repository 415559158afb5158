"""A user's agent (or skill) saved under the id of a global one (SPEC §2: agents are owned by a user, or global): it is
saved — their own, which their runs, delegations and reads then find in the global one's place — and the save
says so, so neither a user nor an admin who left out ``"global": true`` believes the global agent was changed."""

from __future__ import annotations

from typing import Any

from tests.functional.api.conftest import Api
from tests.functional.api.test_agents import AGENT

PATH = "/v1/agents/helpdesk"
ROOT = {"user": "root", "admin": True}


def _hiding(reply_body: dict[str, Any]) -> list[str]:
    return [w for w in reply_body["warnings"] if "hides the global agent" in w]


def test_a_users_agent_saved_over_a_global_id_says_it_hides_the_global_one(api: Api) -> None:
    assert api.put(PATH, {**AGENT, "label": "Helpdesk", "global": True}, **ROOT).status == 200
    saved = api.put(PATH, {**AGENT, "label": "Mine"})
    assert (saved.status, saved.body["global"]) == (200, False)
    (warning,) = _hiding(saved.body)
    assert "delete yours" in warning and '"global": true' not in warning
    assert api.get(PATH, user="bob").body["global"] is True  # everyone else still has the global one


def test_saving_the_users_own_agent_again_or_one_of_a_free_id_warns_nothing(api: Api) -> None:
    assert _hiding(api.put("/v1/agents/free", {**AGENT, "label": "Free"}).body) == []
    api.put(PATH, {**AGENT, "label": "Mine"})
    api.put(PATH, {**AGENT, "label": "Helpdesk", "global": True}, **ROOT)  # a global one made after hers
    assert _hiding(api.put(PATH, {**AGENT, "label": "Mine again"}).body) == []


def test_an_admin_who_left_out_global_is_told_how_to_change_the_global_agent(api: Api) -> None:
    api.put(PATH, {**AGENT, "label": "Helpdesk", "global": True}, **ROOT)
    saved = api.put(PATH, {**AGENT, "label": "Helpdesk v2"}, user="other-admin", admin=True)
    (warning,) = _hiding(saved.body)
    assert '"global": true' in warning
    assert api.get(PATH, user="bob").body["label"] == "Helpdesk"


def test_a_users_skill_saved_over_a_global_name_says_it_hides_the_global_one(api: Api) -> None:
    skill = {"description": "Sets the tone.", "content": "Be warm."}
    assert api.put("/v1/skills/tone", {**skill, "global": True}, **ROOT).status == 200
    saved = api.put("/v1/skills/tone", {**skill, "content": "Be terse."})
    assert (saved.status, saved.body["global"]) == (200, False)
    assert [w for w in saved.body["warnings"] if "hides the global skill" in w] != []
    assert api.put("/v1/skills/tone", {**skill, "content": "Be terser."}).body["warnings"] == []  # hers already
    assert api.get("/v1/skills/tone", user="bob").body["content"] == "Be warm."
