"""The import graph of ``mneme`` and ``mneme_local``: no cycle, and no import from a lower layer to a higher one.

Every import counts (module level, inside functions, and under ``TYPE_CHECKING``): a lazy import is still a
dependency. Layers are listed low to high; a module may import its own layer and the layers below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"mneme": ROOT / "layers" / "mneme" / "mneme", "mneme_local": ROOT / "local" / "mneme_local"}

#: low to high; the first prefix that matches a module names its layer
MNEME_LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "mneme.spec_limits",
            "mneme.errors",
            "mneme.namespace_grammar",
            "mneme.clock",
            "mneme.observability",
            "mneme.telemetry",
            "mneme.json_depth",
            "mneme.schema_refs",
            "mneme.records",
            "mneme.egress",
            "mneme.cold_start",  # the cold-start rules: data, and a preload that imports by name
            "mneme.lazy_packages",  # library packages' re-exports loaded on first use (the standard library only)
        ),
    ),
    ("models", ("mneme.models",)),
    ("contracts", ("mneme.ports", "mneme.settings")),
    ("core", ("mneme.memory", "mneme.context", "mneme.history", "mneme.skills", "mneme.delegation_rules")),
    ("adapters: tables", ("mneme.adapters.dynamo",)),
    (
        "adapters: services",
        ("mneme.adapters.aws", "mneme.adapters.opensearch", "mneme.adapters.s3vectors", "mneme.adapters.mcp"),
    ),
    ("adapters: models", ("mneme.adapters.models", "mneme.adapters")),
    ("engine: base", ("mneme.engine.deps", "mneme.engine.audit", "mneme.engine.parallel", "mneme.engine.mcp_catalog")),
    ("engine: memory I/O", ("mneme.engine.memory_io",)),
    ("engine: runs", ("mneme.engine.runs",)),
    ("engine: privacy", ("mneme.engine.privacy",)),  # an erasure cancels the user's unfinished runs first
    ("engine: views", ("mneme.engine.views", "mneme.engine.configuration", "mneme.engine")),
    ("api", ("mneme.api",)),
    ("roots", ("mneme.runtime", "mneme.composition")),
]
LOCAL_LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("files", ("mneme_local.files",)),
    (
        "stores",
        (
            "mneme_local.sqlite_items",
            "mneme_local.run_list_backfill",
            "mneme_local.vector_rows",
            "mneme_local.vector_index",
            "mneme_local.vector_indexes",
            "mneme_local.vector_lifecycle",
            "mneme_local.keyword_stats",
            "mneme_local.vector_store",
            "mneme_local.outbox",
            "mneme_local.vector_privacy",
            "mneme_local.file_exports",
        ),
    ),
    (
        "services",
        (
            "mneme_local.embedder_graph",
            "mneme_local.embedder_model",
            "mneme_local.embedder",
            "mneme_local.token",
            "mneme_local.auth",
            "mneme_local.gateway_event",
            "mneme_local.local_events",
            "mneme_local.console_assets",
            "mneme_local.api_docs",
            "mneme_local.secrets",
            "mneme_local.live_feed",
            "mneme_local.http_io",
        ),
    ),
    (
        "stand-ins",
        (
            "mneme_local.sfn_emulation",
            "mneme_local.aws_stand_ins",
            "mneme_local.s3vectors_filter",
            "mneme_local.s3vectors_stand_in",
        ),
    ),
    ("stack", ("mneme_local.stack",)),
    ("compose", ("mneme_local.compose", "mneme_local.recovery", "mneme_local.banner")),
    ("streams", ("mneme_local.sse",)),
    ("entry", ("mneme_local.server", "mneme_local.demo", "mneme_local.demo_support", "mneme_local.send_event")),
]


def _module_name(package: str, path: Path) -> str:
    relative = path.relative_to(PACKAGES[package]).with_suffix("")
    parts = [package, *relative.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The known modules ``module`` imports (``from a import b`` counts ``a.b`` when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            targets = submodules if len(submodules) == len(node.names) else [base, *submodules]
        for name in targets:
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(package, path): path for package, folder in PACKAGES.items() for path in folder.rglob("*.py")}
    known = set(files)
    return {module: _imports(module, path, known) for module, path in files.items()}


def _layer(module: str) -> tuple[str, int] | None:
    if module in PACKAGES:  # the package roots only name the package (a version, a docstring)
        return "package", -1
    layers = LOCAL_LAYERS if module.startswith("mneme_local") else MNEME_LAYERS
    for index, (name, prefixes) in enumerate(layers):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return name, index
    return None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _package_inits_excluded(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` re-exporting its modules is not a dependency of those modules on it."""
    return {module: {t for t in targets if not module.startswith(t + ".")} for module, targets in graph.items()}


def test_every_module_has_a_layer() -> None:
    assert [module for module in _graph() if _layer(module) is None] == []


def test_no_import_cycle() -> None:
    assert _cycles(_package_inits_excluded(_graph())) == []


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    upward = []
    for module, targets in _graph().items():
        here = _layer(module)
        for target in sorted(targets):
            there = _layer(target)
            if module.startswith("mneme.") and target.startswith("mneme_local"):
                upward.append(f"{module} -> {target} (the Lambda package imports local mode)")
            elif here and there and module.split(".")[0] == target.split(".")[0] and there[1] > here[1]:
                upward.append(f"{module} ({here[0]}) -> {target} ({there[0]})")
    assert upward == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_the_cycle_check_finds_a_cycle(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _cycles(graph) == expected


def test_the_layer_check_sees_an_upward_import() -> None:
    models, engine = _layer("mneme.models.run"), _layer("mneme.engine.runs.loop")
    assert models is not None and engine is not None and models[1] < engine[1]
