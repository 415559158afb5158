"""Translate template.yaml to plain CloudFormation with aws-sam-translator, offline.

Runs under the SAM CLI's own environment (``.venv-sam``: aws-sam-translator pins another pydantic than the
project's), called by :func:`tests.support.sam_translate.translated`. Usage::

    .venv-sam/bin/python tests/support/translate_template.py <template.yaml> <region>

prints the translated template as JSON. Local ``CodeUri`` / ``ContentUri`` / ``DefinitionUri`` paths are
replaced by S3 locations first, as ``sam validate`` does (the translator accepts only S3 artifacts); no
managed policy is looked up (the template names none by name).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

ARTIFACT_KEYS = ("CodeUri", "ContentUri", "DefinitionUri")


class _NoManagedPolicies:
    def load(self) -> dict[str, str]:
        return {}


def _with_s3_artifacts(template: dict[str, Any]) -> dict[str, Any]:
    for name, resource in template.get("Resources", {}).items():
        props = resource.get("Properties") or {}
        for key in ARTIFACT_KEYS:
            if isinstance(props.get(key), str) and not props[key].startswith("s3://"):
                props[key] = f"s3://artifacts/{name}/{key}"
    return template


def main(path: str, region: str) -> None:
    template = _with_s3_artifacts(yaml_parse(Path(path).read_text()))
    translated = transform(template, {"AWS::Region": region}, _NoManagedPolicies())
    json.dump(translated, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
