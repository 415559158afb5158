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


# --- IAM statements, intrinsic functions and the state machine definition (template tests) ---------

NO_VALUE = {"Ref": "AWS::NoValue"}


def branches(value: Any) -> list[Any]:
    """Every concrete value a (possibly ``Fn::If``-wrapped) template value can take, ``AWS::NoValue`` dropped."""
    if value == NO_VALUE:
        return []
    if isinstance(value, dict) and set(value) == {"Fn::If"}:
        _condition, when_true, when_false = value["Fn::If"]
        return branches(when_true) + branches(when_false)
    return [value]


def sub_text(value: Any) -> Any:
    """The template string of an ``Fn::Sub`` (either form); other values unchanged."""
    if isinstance(value, dict) and set(value) == {"Fn::Sub"}:
        sub = value["Fn::Sub"]
        return sub if isinstance(sub, str) else sub[0]
    return value


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def policy_statements(logical_id: str) -> list[dict[str, Any]]:
    """The inline ``Statement`` entries of a SAM function's or state machine's ``Policies`` (both If branches)."""
    props = resources()[logical_id]["Properties"]
    found: list[dict[str, Any]] = []
    for policy in as_list(props.get("Policies", [])):
        for concrete in branches(policy):
            if isinstance(concrete, dict) and "Statement" in concrete:
                for statement in as_list(concrete["Statement"]):
                    found += branches(statement)
    return found


def policy_templates(logical_id: str) -> list[tuple[str, Any]]:
    """The SAM policy templates (``DynamoDBCrudPolicy: {...}`` and the like) of a resource's ``Policies``."""
    props = resources()[logical_id]["Properties"]
    found: list[tuple[str, Any]] = []
    for policy in as_list(props.get("Policies", [])):
        for concrete in branches(policy):
            if isinstance(concrete, dict) and "Statement" not in concrete:
                found += list(concrete.items())
            elif isinstance(concrete, str):
                found.append((concrete, None))
    return found


def references(value: Any) -> set[str]:
    """Logical ids a value refers to (``Ref``, ``Fn::GetAtt``, ``${Name}`` / ``${Name.Attr}`` in ``Fn::Sub``)."""
    import re

    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                found.add(inner)
            elif key == "Fn::GetAtt":
                found.add(inner[0] if isinstance(inner, list) else str(inner).split(".", 1)[0])
            elif key == "Fn::Sub":
                text = inner if isinstance(inner, str) else inner[0]
                found |= {name.split(".", 1)[0] for name in re.findall(r"\$\{([^}!]+)\}", text)}
                if isinstance(inner, list):
                    found |= references(inner[1])
            else:
                found |= references(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= references(inner)
    return found


def state_machine_definition(logical_id: str = "AgentRunStateMachine") -> dict[str, Any]:
    import json

    uri = resources("AWS::Serverless::StateMachine")[logical_id]["Properties"]["DefinitionUri"]
    data: dict[str, Any] = json.loads((ROOT / uri).read_text())
    return data
