"""template.yaml is the source of truth: every path it names exists."""

from __future__ import annotations

import ast

import pytest

from tests.support.sam_template import ROOT, load_template, resources


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
    assert load_template()["Globals"]["Function"]["Runtime"] == "python3.13"
    assert load_template()["Globals"]["Function"]["Architectures"] == ["arm64"]


def test_the_template_has_a_run_and_a_writer_function() -> None:
    functions = resources("AWS::Serverless::Function")
    assert functions["RunFunction"]["Properties"]["CodeUri"] == "functions/run/"
    assert functions["WriterFunction"]["Properties"]["CodeUri"] == "functions/writer/"


@pytest.mark.parametrize("logical_id", sorted(resources("AWS::Serverless::Function")))
def test_every_function_handler_is_defined_in_its_code(logical_id: str) -> None:
    # Given the function's CodeUri and Handler ("module.function")
    props = resources("AWS::Serverless::Function")[logical_id]["Properties"]
    module, function = props["Handler"].rsplit(".", 1)
    source = ROOT / props["CodeUri"] / f"{module.replace('.', '/')}.py"
    # Then the module exists and defines the handler at top level
    tree = ast.parse(source.read_text())
    names = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert function in names


def test_the_layer_is_built_for_the_functions_runtime_and_architecture() -> None:
    layer = resources("AWS::Serverless::LayerVersion")["MnemeLayer"]
    assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": "arm64"}
    assert layer["Properties"]["CompatibleRuntimes"] == ["python3.13"]
    assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    # the layer's Makefile installs requirements.txt (cp313, aarch64) and copies the package next to it
    content = ROOT / layer["Properties"]["ContentUri"]
    assert (content / "requirements.txt").is_file()
    assert (content / "mneme" / "__init__.py").is_file()
    assert not (content / "python").exists(), "the Makefile builds python/ itself"
    makefile = (content / "Makefile").read_text()
    assert "--python-version 3.13" in makefile and "manylinux2014_aarch64" in makefile
