"""``GET, PUT /v1/me/settings`` (SPEC §2): the user is the token's ``sub``, never a body field."""

from __future__ import annotations

import pytest

from mneme.models.user import UserSettings
from tests.functional.api.conftest import Api

SETTINGS = {"name": "Alice", "email": "alice@example.com", "language": "de", "timezone": "Europe/Berlin"}


def test_settings_default_before_anything_is_saved(api: Api) -> None:
    reply = api.get("/v1/me/settings")
    assert reply.status == 200
    assert reply.body == {"name": "", "email": None, "language": "en", "timezone": "UTC", "user_id": "alice"}


def test_put_settings_stores_them_for_the_caller(api: Api, world) -> None:
    # When alice saves her settings
    reply = api.put("/v1/me/settings", SETTINGS)
    # Then they are answered and stored under her id
    assert reply.status == 200
    assert reply.body == {**SETTINGS, "user_id": "alice"}
    stored = world.deps.config.get_settings("alice")
    assert stored is not None and stored.timezone == "Europe/Berlin"


def test_a_user_id_in_the_settings_body_is_ignored(api: Api, world) -> None:
    # When alice sends a body naming bob
    reply = api.put("/v1/me/settings", {**SETTINGS, "user_id": "bob"})
    # Then alice's settings changed and bob has none
    assert reply.body["user_id"] == "alice"
    assert world.deps.config.get_settings("bob") is None


def test_settings_are_per_user(api: Api) -> None:
    api.put("/v1/me/settings", SETTINGS)
    reply = api.get("/v1/me/settings", user="bob")
    assert (reply.body["user_id"], reply.body["name"]) == ("bob", "")


def test_an_invalid_timezone_is_400_naming_it(api: Api, world) -> None:
    reply = api.put("/v1/me/settings", {**SETTINGS, "timezone": "Mars/Olympus_Mons"})
    assert (reply.status, reply.body["field"]) == (400, "timezone")
    assert world.deps.config.get_settings("alice") is None


def test_an_invalid_language_is_400_naming_it(api: Api) -> None:
    reply = api.put("/v1/me/settings", {**SETTINGS, "language": "not a tag"})
    assert (reply.status, reply.body["field"]) == (400, "language")


def test_a_timezone_too_long_for_a_file_name_is_400_naming_it(api: Api, world) -> None:
    # a name over the file system's 255 bytes made ZoneInfo raise OSError: a 500 before (found by the fuzzer)
    for name in ("Europe/" + "x" * 300, "T\u033a\u033a\u0315o" * 80):
        reply = api.put("/v1/me/settings", {**SETTINGS, "timezone": name})
        assert (reply.status, reply.body["field"]) == (400, "timezone"), reply.body
    assert world.deps.config.get_settings("alice") is None


@pytest.mark.parametrize("tag", ["de-DE-u-ca-buddhist", "en-x-foo", "fr-CA", "zh-Hant-TW", "en-US-u-hc-h23-x-acme"])
def test_a_language_tag_with_extensions_or_private_use_is_saved(api: Api, tag: str) -> None:
    reply = api.put("/v1/me/settings", {**SETTINGS, "language": tag})
    assert reply.status == 200 and reply.body["language"] == tag


@pytest.mark.parametrize("tag", ["xx-x-foo", "de-u", "en--US", "en-x-", "qq-DE-u-ca-buddhist"])
def test_a_malformed_or_unknown_language_with_extensions_is_a_400(api: Api, tag: str) -> None:
    reply = api.put("/v1/me/settings", {**SETTINGS, "language": tag})
    assert (reply.status, reply.body["field"]) == (400, "language")


@pytest.mark.parametrize("name", ["localtime", "posixrules", "right/UTC", "posix/Europe/Berlin"])
def test_a_file_of_the_hosts_tz_database_that_is_no_iana_zone_is_400(api: Api, world, name: str) -> None:
    # ZoneInfo opens these files of /usr/share/zoneinfo: "localtime" is the server's own zone, "right/" counts
    # leap seconds — what a run's dates show would depend on the host the settings are read on
    reply = api.put("/v1/me/settings", {**SETTINGS, "timezone": name})
    assert (reply.status, reply.body["field"]) == (400, "timezone"), reply.body
    assert world.deps.config.get_settings("alice") is None


@pytest.mark.parametrize("name", ["UTC", "America/Argentina/ComodRivadavia", "US/Eastern", "Etc/GMT+5"])
def test_an_iana_zone_name_is_saved(api: Api, name: str) -> None:
    reply = api.put("/v1/me/settings", {**SETTINGS, "timezone": name})
    assert reply.status == 200 and reply.body["timezone"] == name


def test_settings_stored_with_a_host_file_as_timezone_still_load(api: Api, world) -> None:
    # an earlier release saved "localtime": the user's settings (and runs) must still load, to be corrected
    stored = UserSettings.model_construct(name="Alice", email=None, language="en", timezone="localtime")
    world.deps.config.put_settings("alice", stored)
    reply = api.get("/v1/me/settings")
    assert reply.status == 200 and reply.body["timezone"] == "localtime"
    assert api.put("/v1/me/settings", {**reply.body, "timezone": "Europe/Berlin"}).status == 200
