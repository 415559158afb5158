"""Evaluate a template's ``Rules`` the way CloudFormation does before it creates anything (tests only).

Only ``Ref`` (parameters and pseudo parameters) and the rule functions are understood — the same grammar
``tests/infra/test_template_deploy.py`` enforces — so a rule that passes here uses nothing CloudFormation
would reject.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.sam_template import load_template


def parameter_values(region: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Parameter defaults (lists split as CloudFormation splits a CommaDelimitedList) and pseudo parameters."""
    values: dict[str, Any] = {"AWS::Region": region, "AWS::StackName": "mneme-test", "AWS::Partition": "aws"}
    for name, spec in load_template()["Parameters"].items():
        default = spec.get("Default")
        if spec["Type"] == "CommaDelimitedList" and isinstance(default, str):
            default = default.split(",")
        values[name] = default
    values.update(overrides or {})
    return values


_RULE_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "Fn::Equals": lambda args: str(args[0]) == str(args[1]),
    "Fn::Not": lambda args: not args[0],
    "Fn::And": all,
    "Fn::Or": any,
    "Fn::Contains": lambda args: args[1] in args[0],
    "Fn::EachMemberEquals": lambda args: all(member == args[1] for member in args[0]),
    "Fn::EachMemberIn": lambda args: all(member in args[1] for member in args[0]),
}


def evaluate(node: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(node, list):
        return [evaluate(n, values) for n in node]
    if not isinstance(node, dict):
        return node
    ((name, argument),) = node.items()
    if name == "Ref":
        return values[argument]
    if name not in _RULE_FUNCTIONS:
        raise ValueError(f"not a rule function this evaluator knows: {name}")
    return _RULE_FUNCTIONS[name](evaluate(argument, values))


def failed_assertions(region: str, **overrides: Any) -> dict[str, str]:
    """Rule name -> AssertDescription of every assertion that fails for a deploy with these parameters."""
    values = parameter_values(region, overrides)
    failed: dict[str, str] = {}
    for name, rule in load_template().get("Rules", {}).items():
        if "RuleCondition" in rule and not evaluate(rule["RuleCondition"], values):
            continue
        for assertion in rule["Assertions"]:
            if not evaluate(assertion["Assert"], values):
                failed[name] = " ".join(assertion["AssertDescription"].split())
    return failed
