"""Identity over HTTP (issue 12.5, 12.6): no ``sub`` reaches the global key space, no group name but the
admin group's exact name grants admin. Tokens are signed with the local server's development key, so the
real local server (the API Gateway stand-in) verifies them and builds the claims the Lambda gets.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest

from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme.models.agent import Agent
from mneme.models.common import GLOBAL_OWNER
from mneme_local.token import ALGORITHM, AUDIENCE, ISSUER, signing_key
from tests.fakes.items import MemoryItemTable
from tests.functional.local.support import LocalServer
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER

pytestmark = pytest.mark.slow

#: a value for every way a ``sub`` could collide with a key or a reserved owner
RESERVED_SUBS = {
    "the global owner": GLOBAL_OWNER,
    "another sentinel": "__admin__",
    "empty": "",
    "blank": "   ",
    "over-long": "u" * 129,
    "key separator": "alice#CHAT#x",
    "a key prefix": "OWNER#bob",
    "NUL": "ali\x00ce",
    "newline": "alice\nbob",
    "DEL": "alice\x7f",
    "line separator": "alice\u2028bob",
}
#: group claims that name something other than the admin group (as the token carries them). A list claim
#: reaches the Lambda as API Gateway renders it, ``[a b]``: names with white space cannot be told apart there
#: (Cognito group names have none), so those are sent as a JSON array string, which keeps them whole.
ODD_GROUPS: dict[str, Any] = {
    "comma in a name": ["x,admin"],
    "opening bracket": ["[admin"],
    "closing bracket": ["admin]"],
    "case": ["Admin"],
    "spaces around, in a JSON array string": '[" admin "]',
    "prefix": ["admins"],
    "a JSON array string with a space in a name": '["ops admin"]',
    "a JSON array string of a comma name": '["x,admin"]',
    "a plain string with a comma": "x,admin",
    "nested brackets": "[[admin]]",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    data = LEDGER.data_dir("identity server", Path(tmp_path_factory.mktemp("identity")))
    local = LocalServer(data).start()
    try:
        yield local
    finally:
        local.stop()


def _token(server: LocalServer, sub: str, groups: Any = None) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
    if groups is not None:
        claims["cognito:groups"] = groups
    return jwt.encode(claims, signing_key(server.data_dir), algorithm=ALGORITHM)


def _plant(server: LocalServer, token: str, agent_id: str, *, as_global: bool = True) -> int:
    """Try to write a global agent (a prompt-injection channel into every user's runs): as an admin would
    (``"global": true``), or — for a ``sub`` equal to the global owner — as one's own agent."""
    body = {"label": agent_id.title(), "global": as_global, "description": "planted"}
    return server.request("PUT", f"/v1/agents/{agent_id}", body, token=token).status


def test_a_token_whose_sub_could_collide_with_a_reserved_value_is_401(server: LocalServer, figures: Figures) -> None:
    bob = _token(server, "bob")
    for name, sub in RESERVED_SUBS.items():
        # When a token with that sub writes, reads or deletes anything
        token = _token(server, sub)
        statuses = {
            "put own agent": _plant(server, token, "planted", as_global=False),
            "put global agent": _plant(server, token, "planted"),
            "list agents": server.request("GET", "/v1/agents", token=token).status,
            "delete": server.request("DELETE", "/v1/agents/planted", token=token).status,
        }
        # Then every request is refused as unauthenticated
        assert set(statuses.values()) == {401}, (name, statuses)
        figures.add("identity reserved subs refused")
    # And no global agent was planted: bob sees none
    assert server.request("GET", "/v1/agents", token=bob).json() == {"agents": [], "cursor": None}


def test_no_odd_group_name_grants_admin(server: LocalServer, figures: Figures) -> None:
    for name, groups in ODD_GROUPS.items():
        token = _token(server, "mallory", groups)
        assert _plant(server, token, "odd") == 403, name
        figures.add("identity odd group names refused")
    # while the admin group's exact name, in each form the claim arrives in, does
    for groups in (["admin"], ["users", "admin"], '["admin"]', "admin"):
        assert _plant(server, _token(server, "root", groups), "shared") == 200, groups
    assert server.request("DELETE", "/v1/agents/shared", token=_token(server, "root", ["admin"])).status == 204


def test_global_items_stored_by_an_earlier_release_are_read_and_replaced_in_the_new_partition() -> None:
    from mneme.adapters.dynamo.config_keys import LEGACY_GLOBAL_PK  # the partition releases before issue 12 used

    # Given a global agent an earlier release stored under OWNER#__global__
    table = MemoryItemTable(MAIN_SCHEMA)
    store = ItemConfigStore(table)
    legacy = Agent(agent_id="helper", owner=GLOBAL_OWNER, label="Helper", description="old")
    table.put({"PK": LEGACY_GLOBAL_PK, "SK": "AGENT#helper", "data": legacy.model_dump_json()})
    # Then it is still visible to everyone
    assert store.find_agent("alice", "helper") == legacy
    assert [a.agent_id for a in store.visible_agents("alice")] == ["helper"]
    # When an admin saves it again, the new partition is written and wins
    store.put_agent(legacy.model_copy(update={"description": "new"}))
    assert ("GLOBAL", "AGENT#helper") in table._items
    assert store.find_agent("alice", "helper").description == "new"  # type: ignore[union-attr]
    assert [a.description for a in store.list_agents(GLOBAL_OWNER)] == ["new"]
    # And a delete removes both copies
    assert store.delete_agent(GLOBAL_OWNER, "helper")
    assert store.find_agent("alice", "helper") is None
