"""Read template.yaml (with CloudFormation short tags) — the single source of truth for tests."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = str(value).split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CfnLoader.add_multi_constructor("!", _tag)


@cache
def load_template() -> dict[str, Any]:
    data: dict[str, Any] = yaml.load(TEMPLATE.read_text(), Loader=_CfnLoader)
    return data


def resources(kind: str | None = None) -> dict[str, dict[str, Any]]:
    items = load_template()["Resources"].items()
    return {name: res for name, res in items if kind is None or res["Type"] == kind}


def table_definition(logical_id: str) -> dict[str, Any]:
    """The create_table arguments of a DynamoDB table, as the template declares it (for moto)."""
    props = resources("AWS::DynamoDB::Table")[logical_id]["Properties"]
    args: dict[str, Any] = {
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST"),
    }
    if "GlobalSecondaryIndexes" in props:
        args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    return args


def create_tables(client: Any, names: dict[str, str]) -> None:
    """Create the template's tables in a (moto) DynamoDB client: ``{logical_id: physical_name}``."""
    for logical_id, physical in names.items():
        client.create_table(TableName=physical, **table_definition(logical_id))
