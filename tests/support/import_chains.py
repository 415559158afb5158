"""Source text for fresh-interpreter probes that record, for every module, the chain of imports that loaded it.

``IMPORT_CHAINS`` defines ``chains`` (module name → its chain, innermost first) and installs a finder at the
head of ``sys.meta_path``. The finder only looks: each time the import system searches for a module not yet
loaded, it walks the Python stack and keeps the code that was running — each module body being executed (an
import in progress) by its name, each function of mneme or of the handler by its qualified name — so that a
module loaded where a rule forbids it is reported with the change that pulled it in::

    boto3 ← mneme.adapters.aws.botocore_session ← mneme.cold_start.preload() ← app

``chain_of(name)`` formats it; ``loaded(prefixes)`` lists the modules of those packages loaded so far.
"""

from __future__ import annotations

IMPORT_CHAINS = """
import importlib.abc, sys

chains = {}
_MINE = ("mneme", "app")


def _frames(frame):
    links = []
    while frame is not None:
        module = frame.f_globals.get("__name__", "?")
        code = frame.f_code
        if code.co_name == "<module>":
            links.append(module)
        elif module.split(".")[0] in _MINE:
            links.append(f"{module}.{code.co_qualname}()")
        frame = frame.f_back
    deduplicated = []
    for link in links:
        if not deduplicated or deduplicated[-1] != link:
            deduplicated.append(link)
    return deduplicated


class _Chains(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in sys.modules and name not in chains:
            chains[name] = _frames(sys._getframe(1))
        return None


sys.meta_path.insert(0, _Chains())


def chain_of(name):
    return " \\u2190 ".join([name, *chains.get(name, ["(loaded before the probe started)"])])


def loaded(prefixes):
    return sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes))
"""
