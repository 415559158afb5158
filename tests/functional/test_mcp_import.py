"""The MCP SDK costs nothing until it is needed, and the layer holds everything it needs (issue 20).

One fresh interpreter (this test process has long imported everything) plays the run function: the real
runtime over the in-memory world, with the SDK's MCP client. As on Lambda, only the layer's packages
(``layers/mneme/requirements.txt``), the ones the Lambda runtime provides and the standard library can be
imported in it: anything else installed in the virtualenv (uvicorn, python-multipart, jsonschema's optional
format checkers, …) is made unimportable. It serves, in order: a run of an agent without MCP servers, a run of
an agent that calls a tool of a real MCP server (the SDK's, on loopback), and a ``tools/list`` POST to mneme's
own ``/mcp``. After each step it reports what is imported.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_server import McpTestServer

ROOT = Path(__file__).resolve().parents[2]
SDK = ("mcp", "mcp_types", "httpx2", "httpcore2", "anyio", "starlette", "sse_starlette", "cryptography", "jsonschema")
RUNTIME_PROVIDED = {"boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"}

_PROBE = """
import importlib.abc, importlib.metadata, json, sys
sys.path[:0] = {paths}
ALLOWED = {allowed}
OWNERS = importlib.metadata.packages_distributions()
STARTED = set(sys.modules)

def allowed(root):
    owners = OWNERS.get(root)
    if not owners or root in STARTED:  # the standard library, mneme, the tests: no installed distribution
        return True
    return any(name.lower().replace("_", "-") in ALLOWED for name in owners)

class OnlyTheLayer(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if "." not in name and name not in sys.modules and not allowed(name):
            raise ModuleNotFoundError(f"No module named {{name!r}} (not in the layer)", name=name)
        return None

sys.meta_path.insert(0, OnlyTheLayer())
from mneme.adapters.mcp.client import SdkMcpToolSource
from mneme.adapters.models.offline import OfflineModel
from mneme.runtime import Runtime
from tests.support.deps import make_world

world = make_world(OfflineModel(), MNEME_MCP_ALLOW_PRIVATE_NETWORKS="true")
world.deps.mcp = SdkMcpToolSource(allow_private_networks=True)
runtime = Runtime(world.deps)

def event(method, path, body, headers=None):
    return {{
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
        "headers": {{"content-type": "application/json", **(headers or {{}})}},
        "requestContext": {{"http": {{"method": method, "path": path, "sourceIp": "203.0.113.1"}}, "stage": "$default",
                            "authorizer": {{"jwt": {{"claims": {{"sub": "alice"}}}}}}}},
        "body": json.dumps(body), "isBase64Encoded": False,
    }}

report = {{"started": sorted(STARTED)}}
runtime.handle(event("PUT", "/v1/agents/plain", {{"label": "Plain"}}))
runtime.handle(event("POST", "/v1/runs", {{"agent_id": "plain", "input": "hello"}}))
report["without_mcp"] = sorted(sys.modules)
server = {{"name": "tools", "url": {url!r}}}
runtime.handle(event("PUT", "/v1/agents/tooled", {{"label": "Tooled", "mcp_servers": [server]}}))
call = '/tool tools__add {{"a": 1, "b": 2}}'
answer = runtime.handle(event("POST", "/v1/runs", {{"agent_id": "tooled", "input": call}}))
report["client_output"] = json.loads(answer["body"])["output"]
report["with_client"] = sorted(sys.modules)
headers = {{"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}}
listed = runtime.handle(event("POST", "/mcp", {{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}, headers))
report["server_tools"] = [t["name"] for t in json.loads(listed["body"])["result"]["tools"]]
report["with_server"] = sorted(sys.modules)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report() -> Iterator[dict[str, Any]]:
    server = McpTestServer().start()
    try:
        paths = [str(ROOT), str(ROOT / "layers" / "mneme")]
        code = _PROBE.format(paths=paths, allowed=_layer() | RUNTIME_PROVIDED, url=server.url)
        command = [sys.executable, "-c", code]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        yield json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        server.stop()


def _sdk(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in SDK]


def _distributions(modules: list[str], started: list[str]) -> set[str]:
    """The installed distributions the modules come from (the standard library, what the interpreter loads
    at start — a virtualenv's .pth hooks — and mneme itself left out)."""
    owners = importlib.metadata.packages_distributions()
    roots = {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names) - {"mneme", "tests", "app"}
    roots -= {m.split(".")[0] for m in started}
    used: set[str] = set()
    for root in roots:
        names = owners.get(root, [])
        if len(names) > 1:  # a namespace package (opentelemetry): only the distributions of modules imported
            names = [name for name in names if _ships_any(name, [m for m in modules if m.split(".")[0] == root])]
        used |= {name.lower().replace("_", "-") for name in names}
    return used


def _ships_any(distribution: str, modules: list[str]) -> bool:
    files = {str(f).removesuffix(".py").removesuffix("/__init__") for f in importlib.metadata.files(distribution) or []}
    return any(module.replace(".", "/") in files for module in modules)


def _layer() -> set[str]:
    lines = (ROOT / "layers" / "mneme" / "requirements.txt").read_text().splitlines()
    return {line.split("==")[0].strip().lower().replace("_", "-") for line in lines if line and line[0] != "#"}


def test_a_run_of_an_agent_without_mcp_servers_imports_nothing_of_the_sdk(report: dict[str, Any]) -> None:
    assert _sdk(report["without_mcp"]) == []


def test_an_agent_with_an_mcp_server_loads_the_sdk_and_calls_the_tool(report: dict[str, Any]) -> None:
    assert "mcp" in report["with_client"] and "mcp.client.streamable_http" in report["with_client"]
    assert "- tools__add: 3" in report["client_output"]


def test_the_mcp_client_needs_only_the_layers_packages(report: dict[str, Any]) -> None:
    used = _distributions(report["with_client"], report["started"])
    assert used - _layer() - RUNTIME_PROVIDED == set()
    assert {"mcp", "httpx2", "anyio", "cryptography"} <= used


def test_the_mcp_endpoint_needs_only_the_layers_packages(report: dict[str, Any]) -> None:
    assert report["server_tools"] == ["memory-search", "memory-write", "memory-delete", "run-agent"]
    used = _distributions(report["with_server"], report["started"])
    assert used - _layer() - RUNTIME_PROVIDED == set()
    assert {"mcp", "starlette", "sse-starlette"} <= used


def test_the_packages_left_out_of_the_layer_are_not_in_it() -> None:
    assert _layer() & {"uvicorn", "click", "python-multipart", "pycparser"} == set()
