"""Which media types are JSON bodies (mneme.api.media_type)."""

from __future__ import annotations

import pytest

from mneme.api.media_type import content_type, is_json


@pytest.mark.parametrize("media_type", ["application/json", "application/merge-patch+json", "application/ld+json"])
def test_json_types(media_type: str) -> None:
    assert is_json(media_type)


@pytest.mark.parametrize("media_type", ["", "text/plain", "application/x-www-form-urlencoded", "text/json+x", "json"])
def test_other_types(media_type: str) -> None:
    assert not is_json(media_type)


def test_the_type_is_read_without_parameters_and_lowercased() -> None:
    assert content_type({"Content-Type": "Application/JSON; charset=UTF-8"}) == "application/json"
    assert content_type({}) == "" and content_type(None) == ""
