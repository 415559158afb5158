"""template.yaml is the source of truth: every path it names exists."""

from __future__ import annotations

from tests.support.sam_template import ROOT, resources


def test_every_code_content_and_definition_uri_exists() -> None:
    # Given the template's resources
    uris = [
        (name, props[key])
        for name, res in resources().items()
        for props in [res.get("Properties", {})]
        for key in ("CodeUri", "ContentUri", "DefinitionUri")
        if isinstance(props.get(key), str)
    ]
    # Then each local path exists
    assert uris, "the template names no code"
    missing = [(name, uri) for name, uri in uris if not (ROOT / uri).exists()]
    assert missing == []


def test_run_function_uses_the_lambda_python_runtime() -> None:
    from tests.support.sam_template import load_template

    assert load_template()["Globals"]["Function"]["Runtime"] == "python3.13"
