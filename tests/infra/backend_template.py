"""The translated template as one deploy sees it: Conditions evaluated for given parameter values, resources
whose Condition is false dropped, every ``Fn::If`` resolved (``AWS::NoValue`` removed). Tests only.

Understands the condition functions CloudFormation allows in ``Conditions`` (``Fn::Equals``, ``Fn::Not``,
``Fn::And``, ``Fn::Or``, ``Condition``) over ``Ref`` and ``Fn::Join`` of parameters; anything else raises, so a
condition this cannot read fails the test instead of being guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.cfn_rules import parameter_values
from tests.support.sam_translate import translated

NO_VALUE = {"Ref": "AWS::NoValue"}
_DROP = object()


_LOGIC = {
    "Fn::Equals": lambda args: str(args[0]) == str(args[1]),
    "Fn::Not": lambda args: not args[0],
    "Fn::And": all,
    "Fn::Or": any,
}


def _value(node: Any, values: Mapping[str, Any], conditions: dict[str, bool], raw: Mapping[str, Any]) -> Any:
    if not isinstance(node, dict):
        return node
    ((name, arg),) = node.items()
    if name == "Ref":
        return values[arg]
    if name == "Fn::Join":
        separator, parts = arg
        items = _value(parts, values, conditions, raw) if isinstance(parts, dict) else parts
        return separator.join(str(_value(p, values, conditions, raw)) for p in items)
    if name in ("Condition", "Fn::Condition"):
        return condition(arg, values, conditions, raw)
    if name not in _LOGIC:
        raise ValueError(f"not a condition function: {name}")
    return _LOGIC[name]([_value(a, values, conditions, raw) for a in arg])


def condition(name: str, values: Mapping[str, Any], conditions: dict[str, bool], raw: Mapping[str, Any]) -> bool:
    if name not in conditions:
        conditions[name] = bool(_value(raw[name], values, conditions, raw))
    return conditions[name]


def _resolve(node: Any, truth: Mapping[str, bool]) -> Any:
    if isinstance(node, list):
        return [r for r in (_resolve(n, truth) for n in node) if r is not _DROP]
    if not isinstance(node, dict):
        return node
    if node == NO_VALUE:
        return _DROP
    if set(node) == {"Fn::If"}:
        name, when_true, when_false = node["Fn::If"]
        return _resolve(when_true if truth[name] else when_false, truth)
    resolved = {k: _resolve(v, truth) for k, v in node.items()}
    return {k: v for k, v in resolved.items() if v is not _DROP}


def deployed(region: str = "us-east-1", **overrides: Any) -> dict[str, Any]:
    """The translated template's resources and outputs for a deploy with these parameter values."""
    template = translated(region)
    values = parameter_values(region, overrides)
    raw = template.get("Conditions", {})
    conditions: dict[str, bool] = {}
    truth = {name: condition(name, values, conditions, raw) for name in raw}
    kept = {n: r for n, r in template["Resources"].items() if truth.get(r.get("Condition", ""), True)}
    outputs = {n: o for n, o in template.get("Outputs", {}).items() if truth.get(o.get("Condition", ""), True)}
    result: dict[str, Any] = _resolve({"Resources": kept, "Outputs": outputs}, truth)
    result["Conditions"] = truth
    return result


def role_statements(template: Mapping[str, Any], role: str) -> dict[str, dict[str, Any]]:
    """Sid -> statement of every inline policy of a role (SAM puts a function's ``Policies`` on its role)."""
    found: dict[str, dict[str, Any]] = {}
    for policy in template["Resources"][role]["Properties"].get("Policies", []):
        statements = policy["PolicyDocument"]["Statement"]
        for i, statement in enumerate(statements if isinstance(statements, list) else [statements]):
            found[statement.get("Sid", f"{policy['PolicyName']}#{i}")] = statement
    return found
