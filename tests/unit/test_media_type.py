"""Which media types are JSON bodies (mneme.api.media_type)."""

from __future__ import annotations

import pytest

from mneme.api.media_type import content_type, is_json, require_json_body


@pytest.mark.parametrize("media_type", ["application/json", "application/merge-patch+json", "application/ld+json"])
def test_json_types(media_type: str) -> None:
    assert is_json(media_type)


@pytest.mark.parametrize("media_type", ["", "text/plain", "application/x-www-form-urlencoded", "text/json+x", "json"])
def test_other_types(media_type: str) -> None:
    assert not is_json(media_type)


def test_the_type_is_read_without_parameters_and_lowercased() -> None:
    assert content_type({"Content-Type": "Application/JSON; charset=UTF-8"}) == "application/json"
    assert content_type({}) == "" and content_type(None) == ""


def test_an_accepted_body_reaches_the_resolver_declared_application_json() -> None:
    event = {"body": "{}", "headers": {"Content-Type": "APPLICATION/JSON; charset=utf-8", "x-other": "1"}}
    assert require_json_body(event)["headers"] == {"x-other": "1", "content-type": "application/json"}


def test_a_request_without_a_body_is_left_as_it_came() -> None:
    event = {"body": "", "headers": {"content-type": "text/plain"}}
    assert require_json_body(event) is event
