"""Every HTTP route handler is a parse + ONE engine call + a response (the use case lives in the engine).

Read from the source of ``mneme/api/*_routes.py``: a route function (decorated ``@router.<method>``) has no
control flow (``if``, loops, ``try``, ``with``, ``raise``), calls exactly one function of ``mneme.engine``, and
never reaches a store or a port through the deps itself (``deps_of(router).<anything>``). The tools of mneme's
MCP server (``mneme/api/mcp_operations.py``, decorated ``@operation(...)``) are held to the same rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "layers" / "mneme" / "mneme" / "api"
ROUTE_MODULES = sorted(API.glob("*_routes.py"))
MCP_OPERATIONS = API / "mcp_operations.py"
CONTROL_FLOW = (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.Raise, ast.AsyncFor, ast.AsyncWith, ast.Match)


def _engine_names(tree: ast.Module) -> set[str]:
    """The local names bound to ``mneme.engine`` modules or functions by the module's imports."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mneme.engine"):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def _routes(tree: ast.Module) -> list[ast.FunctionDef]:
    def is_route(decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):  # an MCP tool: @operation(name, body, description)
            return target.id == "operation"
        return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "router"

    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and any(map(is_route, n.decorator_list))]


def _called_name(call: ast.Call) -> str | None:
    """``f(...)`` → ``f``; ``module.f(...)`` → ``module``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return None


def route_problems(source: str) -> list[str]:
    tree = ast.parse(source)
    engine = _engine_names(tree)
    problems: list[str] = []
    for route in _routes(tree):
        body = ast.Module(body=route.body, type_ignores=[])
        flow = [type(n).__name__ for n in ast.walk(body) if isinstance(n, CONTROL_FLOW)]
        calls = [n for n in ast.walk(body) if isinstance(n, ast.Call) and _called_name(n) in engine]
        through_deps = [
            n
            for n in ast.walk(body)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "deps_of"
        ]
        if flow:
            problems.append(f"{route.name}: control flow {flow}")
        if len(calls) != 1:
            problems.append(f"{route.name}: {len(calls)} engine calls")
        if through_deps:
            problems.append(f"{route.name}: reaches the deps directly")
    return problems


@pytest.mark.parametrize("module", ROUTE_MODULES, ids=lambda p: p.name)
def test_every_route_is_one_engine_call(module: Path) -> None:
    assert route_problems(module.read_text(encoding="utf-8")) == []


def test_every_mcp_tool_is_one_engine_call() -> None:
    tree = ast.parse(MCP_OPERATIONS.read_text(encoding="utf-8"))
    assert len(_routes(tree)) == 4
    assert route_problems(MCP_OPERATIONS.read_text(encoding="utf-8")) == []


def test_the_route_modules_are_found() -> None:
    assert len(ROUTE_MODULES) >= 5
    assert all(_routes(ast.parse(p.read_text(encoding="utf-8"))) for p in ROUTE_MODULES)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("    if deps_of(router).runs.get_run(x) is None:\n        raise NotFound('x')\n", "control flow"),
        ("    return deps_of(router).runs.get_run(x)\n", "0 engine calls"),
        ("    service.a(deps_of(router))\n    return service.b(deps_of(router))\n", "2 engine calls"),
        ("    return service.a(deps_of(router).runs)\n", "reaches the deps directly"),
    ],
)
def test_the_check_sees_a_route_with_logic(body: str, problem: str) -> None:
    source = f"from mneme.engine import service\n\n@router.get('/x')\ndef route(x):\n{body}"
    assert any(problem in found for found in route_problems(source))


def test_the_check_sees_an_mcp_tool_with_logic() -> None:
    body = "    if x:\n        return service.a(deps)\n    return service.b(deps)\n"
    source = f"from mneme.engine import service\n\n@operation('x', Body, 'd')\ndef tool(deps, caller, x):\n{body}"
    problems = route_problems(source)
    assert any("control flow" in p for p in problems) and any("2 engine calls" in p for p in problems)
