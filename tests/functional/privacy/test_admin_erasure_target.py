"""An admin names the user to erase in the path: a name no token can carry (empty after trimming, the key
separator ``#``, a control character, a reserved ``__name__``) is a 400 naming ``user_id`` — never a "done,
verified" receipt for an erasure of nobody, an erasure record and an audit chain written under that name."""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import Api
from tests.support.deps import World


@pytest.mark.parametrize("user_id", ["%20", "bob%23CHAT%23c1", "USER%23bob", "bob%0A", "__system__"])
def test_an_admin_erasure_of_an_unusable_user_id_is_a_400_and_records_nothing(
    api: Api, world: World, user_id: str
) -> None:
    # Given bob, who has settings
    api.put("/v1/me/settings", {"name": "Bob"}, user="bob")
    # When an admin asks to erase a user id that no token can carry
    reply = api.delete(f"/v1/admin/users/{user_id}", user="root", admin=True)
    # Then the request is refused, naming the field and why, and nothing was recorded for it
    assert reply.status == 400, reply.text
    assert reply.body["field"] == "user_id" and "user id" in reply.body["message"]
    assert world.deps.audit.query("root", action="erasure").records == []
    assert api.get(f"/v1/admin/users/{user_id}/erasure", user="root", admin=True).status == 400
    assert api.get("/v1/me/settings", user="bob").body["name"] == "Bob"  # bob is untouched
