"""The client's models are what the generator makes of the API's current OpenAPI document."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from scripts import client_models


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return client_models.openapi_document()


def test_regenerating_the_models_gives_no_diff(document: dict[str, Any]) -> None:
    assert client_models.render(document) == client_models.MODELS.read_text(encoding="utf-8")


def test_a_changed_schema_changes_the_models(document: dict[str, Any]) -> None:
    changed = copy.deepcopy(document)
    schemas: Any = changed["components"]
    schemas["schemas"]["RunView"]["properties"]["brand_new_field"] = {"type": "string", "title": "Brand New Field"}
    rendered = client_models.render(changed)
    assert rendered != client_models.MODELS.read_text(encoding="utf-8")
    assert "brand_new_field" in rendered


def test_check_mode_fails_on_stale_models(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    stale = tmp_path / "models.py"
    stale.write_text("# stale\n", encoding="utf-8")
    monkeypatch.setattr(client_models, "MODELS", stale)
    monkeypatch.setattr(client_models, "REPO", tmp_path)
    assert client_models.main(["--check"]) == 1
    assert stale.read_text(encoding="utf-8") == "# stale\n"  # --check writes nothing
    assert client_models.main([]) == 0
    assert client_models.main(["--check"]) == 0
