"""Generate the Python client's models from the API's OpenAPI document: ``python -m scripts.client_models``.

The document is the one ``GET /v1/openapi.json`` serves, built offline from the code (no server, no AWS);
datamodel-code-generator (pinned in requirements/dev.txt) turns its schemas into pydantic models, and ruff
formats them with the repository's settings. ``--check`` exits 1 when the committed models differ from what
the code generates now (the API changed: regenerate and commit). Needs ``PYTHONPATH=layers/mneme``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "clients/python/src/mneme_client/models.py"
HEADER = (
    "# Generated from mneme's OpenAPI document by `make client-models` (scripts/client_models.py): do not edit.\n"
    "# ruff: noqa"
)
OPTIONS = (
    "--input-file-type=openapi",
    "--output-model-type=pydantic_v2.BaseModel",
    "--target-python-version=3.11",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-annotated",
    "--field-constraints",
    "--collapse-root-models",
    "--enum-field-as-literal=all",
    # the API takes a moment without an offset as UTC (mneme.models.common.Moment), and a date alone: a client
    # refusing them before sending (pydantic's AwareDatetime) refused what the server accepts
    "--output-datetime-class=datetime",
    "--extra-fields=allow",  # a newer server may add fields: an older client keeps them instead of failing
    "--disable-timestamp",
    "--formatters=builtin",
)


def openapi_document() -> dict[str, object]:
    """The document of ``GET /v1/openapi.json``, from the code."""
    from mneme.api.app import create_app, openapi_document

    document: dict[str, object] = json.loads(openapi_document(create_app()))
    return document


def _tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def render(document: dict[str, object]) -> str:
    """The models module for ``document``, formatted as committed."""
    with tempfile.TemporaryDirectory(prefix="mneme-client-models-") as scratch:
        source = Path(scratch) / "openapi.json"
        output = Path(scratch) / "models.py"
        source.write_text(json.dumps(document, sort_keys=True), encoding="utf-8")
        command = [_tool("datamodel-codegen"), f"--input={source}", f"--output={output}", *OPTIONS]
        subprocess.run(
            [*command, f"--custom-file-header={HEADER}"],
            check=True,
            capture_output=True,
            text=True,
        )
        raw = output.read_text(encoding="utf-8")
    formatted = subprocess.run(
        [_tool("ruff"), "format", f"--stdin-filename={MODELS}", "-"],
        input=raw,
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    return formatted.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.client_models", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed models are out of date")
    args = parser.parse_args(argv)
    generated = render(openapi_document())
    current = MODELS.read_text(encoding="utf-8") if MODELS.exists() else ""
    if args.check:
        if generated != current:
            sys.stderr.write(f"{MODELS.relative_to(REPO)} is out of date: run `make client-models` and commit it\n")
            return 1
        return 0
    if generated != current:
        MODELS.write_text(generated, encoding="utf-8")
        sys.stdout.write(f"wrote {MODELS.relative_to(REPO)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
