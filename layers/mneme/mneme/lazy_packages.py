"""Library packages whose ``__init__`` re-exports far more than a run uses, made to load a name on first use.

``aws_lambda_powertools.event_handler``'s ``__init__`` imports every resolver Powertools has — AppSync's
imports asyncio — and ``aws_lambda_powertools.utilities.data_classes``'s every event source (about 40
modules), while mneme's HTTP resolver needs one resolver and seven event classes. Python runs a package's
``__init__`` before any of its submodules, so importing ``…event_handler.api_gateway`` pays for all of it:
about 50 modules and 35–55 ms of a python3.13 cold start's CPU (docs/performance.md §1).

:func:`install` puts in ``sys.modules``, before the package's first import, the package's module object
built from its own spec (same ``__path__``, ``__file__``, ``__spec__``) without running its ``__init__``,
with a module ``__getattr__`` (PEP 562) that imports a re-exported name from the submodule the ``__init__``
takes it from, on first access. The names and their submodules are read from the installed ``__init__``
itself (``ast``), never from a list kept here. The ``__init__``'s other statements (a version string, a helper
function) run at once, as they would; an ``__init__`` whose deferral could change what it does (a star import,
``from . import sub``, a statement using a re-exported name) loads as usual. The run function's init phase
installs :data:`PACKAGES` (:func:`mneme.cold_start.preload`); the test suite runs with them installed.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from typing import Any, NamedTuple

#: the packages made lazy, and why (each must only re-export names from its submodules)
PACKAGES: dict[str, str] = {
    "aws_lambda_powertools.event_handler": "re-exports every resolver; AppSync's loads asyncio",
    "aws_lambda_powertools.utilities.data_classes": "re-exports ~40 event sources; the HTTP resolver uses 7",
    "wrapt": "re-exports its whole API; its synchronization module imports asyncio (X-Ray's first traced call)",
}


class Reexports(NamedTuple):
    """What a package's ``__init__`` re-exports (``name -> (module as written, attribute)``; relative modules keep
    their leading dots), and its other statements, which run when the package is installed."""

    names: dict[str, tuple[str, str]]
    rest: list[ast.stmt]


def exports(source: str) -> Reexports | None:
    """The ``__init__``'s re-exports, or None when deferring them could change what it does: a star import,
    ``from . import sub``, or another statement that uses a re-exported name."""
    names: dict[str, tuple[str, str]] = {}
    rest: list[ast.stmt] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names) or (node.level and not node.module):
                return None
            module = "." * node.level + (node.module or "")
            names.update({alias.asname or alias.name: (module, alias.name) for alias in node.names})
        else:
            rest.append(node)
    used = {n.id for stmt in rest for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id != "__all__"}
    return None if used & set(names) else Reexports(names, rest)


def install(package: str) -> bool:
    """Make ``package`` load its re-exported names on first use. False (nothing changed) if it is already
    imported, is not a package, or its ``__init__`` is not a pure re-export (:func:`exports`)."""
    if package in sys.modules:
        return False
    spec = importlib.util.find_spec(package)  # imports the parent package (not this one)
    if spec is None or spec.submodule_search_locations is None or spec.loader is None:
        return False
    get_source = getattr(spec.loader, "get_source", None)
    source = get_source(package) if get_source is not None else None
    found = exports(source) if source else None
    if found is None:
        return False
    names = found.names
    module = importlib.util.module_from_spec(spec)  # the package's attributes, its __init__ not run

    def __getattr__(name: str) -> Any:  # noqa: N807 - PEP 562's module hook
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        where, attribute = names[name]
        value = getattr(importlib.import_module(where, package), attribute)
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807 - PEP 562's module hook
        return sorted(set(module.__dict__) | set(names))

    module.__dict__.update(__getattr__=__getattr__, __dir__=__dir__, __all__=list(names))
    sys.modules[package] = module
    try:  # the __init__'s other statements (its version, its own __all__ …) run now, as an import would
        code = compile(ast.Module(body=found.rest, type_ignores=[]), spec.origin or package, "exec")
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[package]
        raise
    parent, _, child = package.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return True


def install_all() -> list[str]:
    """:func:`install` each of :data:`PACKAGES`; the ones made lazy."""
    return [package for package in PACKAGES if install(package)]
