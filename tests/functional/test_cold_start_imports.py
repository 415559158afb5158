"""What a cold start imports and builds: the AWS clients come from botocore alone (no boto3, no s3transfer),
only the router of the route asked for is imported, and the pydantic models a run uses are built in the init
phase while the others are never built (a fresh interpreter talking to a moto server)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from mneme.adapters.dynamo.config_store import ItemConfigStore
from mneme.adapters.dynamo.items import MAIN_SCHEMA
from mneme.adapters.dynamo.table import DynamoItemTable
from mneme.models.agent import Agent
from tests.support.model_probe import MNEME_MODELS
from tests.support.sam_template import create_tables

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

_PROBE = """
import json, sys
sys.path[:0] = [{paths}]
import app
event = json.load(open({event!r}))
event["headers"].pop("idempotency-key", None)
event["body"] = json.dumps({{"agent_id": "nobody", "input": "hello"}})
response = app.lambda_handler(event, None)
_OTHER_ROUTES = ("mneme.api.views", "mneme.models.requests")  # the other routes' response views and bodies
after_run = sorted(m for m in _OTHER_ROUTES if m in sys.modules)
print(json.dumps({{
    "status": response["statusCode"],
    "runtime_built": app._runtime is not None,
    "other_routes_after_run": after_run,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "s3transfer", "botocore")),
    "routers": sorted(m for m in sys.modules if m.startswith("mneme.api.") and m.endswith("_routes")),
    "agents": app.lambda_handler({{**event, "rawPath": "/v1/agents", "body": None,
        "requestContext": {{**event["requestContext"], "http": {{**event["requestContext"]["http"], "method": "GET",
        "path": "/v1/agents"}}}}}}, None)["statusCode"],
    "other_routes_after_agents": sorted(m for m in _OTHER_ROUTES if m in sys.modules),
}}))
"""


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    client = boto3.client(
        "dynamodb", region_name="us-east-1", endpoint_url=url, aws_access_key_id="t", aws_secret_access_key="t"
    )
    create_tables(client, {"MainTable": "m", "AuditTable": "a"})
    config = ItemConfigStore(DynamoItemTable(client, "m", MAIN_SCHEMA))
    config.put_agent(
        Agent(
            agent_id="researcher",
            owner="alice",
            label="Researcher",
            model={"provider": "offline"},
            memory_policy={"auto_read_enabled": False, "allow_write": False},
        )
    )
    try:
        yield url
    finally:
        server.stop()


_MODELS = """
import json, os, sys
sys.path[:0] = [{paths}]
{mneme_models}

def built():
    return sorted(name for name, model in mneme_models().items() if model.__pydantic_complete__)


import app
after_import = built()
event = json.load(open({event!r}))
event["headers"]["idempotency-key"] = os.urandom(8).hex()
response = app.lambda_handler(event, None)
after_run = built()
print(json.dumps({{
    "status": response["statusCode"], "body": response["body"], "after_import": after_import,
    "built_by_the_run": sorted(set(after_run) - set(after_import)), "models": sorted(mneme_models()),
}}))
"""


_OPENSEARCH = """
import json, os, sys
sys.path[:0] = [{paths}]
import app
event = json.load(open({event!r}))
event["headers"]["idempotency-key"] = os.urandom(8).hex()
response = app.lambda_handler(event, None)
print(json.dumps({{
    "status": response["statusCode"], "store": type(app._runtime.deps.memory).__name__,
    "inner": type(app._runtime.deps.memory.inner).__name__,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("opensearchpy", "requests", "charset_normalizer")),
}}))
"""


def _probe(endpoint: str, program: str, **environ: str) -> dict[str, Any]:
    paths = ", ".join(repr(str(ROOT / p)) for p in ("functions/run", "layers/mneme"))
    code = program.format(paths=paths, event=str(ROOT / "events" / "http-post-run.json"), mneme_models=MNEME_MODELS)
    env = {
        "PATH": "/usr/bin:/bin",
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "MNEME_TABLE": "m",
        "MNEME_AUDIT_TABLE": "a",
        "MNEME_MODEL_PROVIDER": "offline",
        **environ,
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _first_request(endpoint: str) -> dict[str, Any]:
    """A fresh interpreter with the deployed environment (DynamoDB being a moto server) answers a first
    POST /v1/runs (for an agent that does not exist: the config is read, 404), then a GET /v1/agents."""
    return _probe(endpoint, _PROBE)


def test_a_first_request_through_the_handler_imports_no_boto3(endpoint: str) -> None:
    result = _first_request(endpoint)
    loaded = result["loaded"]
    assert isinstance(loaded, list)
    # Then the runtime was built and talked to DynamoDB through botocore, without boto3 or s3transfer
    assert result["runtime_built"] is True and result["status"] == 404
    assert "botocore.client" in loaded
    assert [m for m in loaded if not m.startswith("botocore")] == []


def test_a_first_request_loads_only_its_router_and_the_others_come_on_demand(endpoint: str) -> None:
    result = _first_request(endpoint)
    # Then only the runs router was imported for POST /v1/runs, and a later GET /v1/agents was still served
    assert result["routers"] == ["mneme.api.run_routes"]
    assert result["agents"] == 200


def test_a_first_run_imports_no_other_routes_views_or_bodies(endpoint: str) -> None:
    result = _first_request(endpoint)
    # Then POST /v1/runs defined none of the other routes' response views or request bodies (pydantic classes
    # cost their definition even when deferred) ...
    assert result["other_routes_after_run"] == []
    # ... and the first GET /v1/agents, whose router needs the bodies (not the views), loaded them
    assert result["other_routes_after_agents"] == ["mneme.models.requests"]


def test_the_models_a_run_uses_are_built_at_import_and_the_run_builds_none(endpoint: str) -> None:
    # When a fresh interpreter imports the handler (Lambda's init phase) and answers a first POST /v1/runs
    result = _probe(endpoint, _MODELS)
    assert result["status"] == 200, result["body"]
    # Then every model the run validated or serialized had been built by the import: the run built none
    assert result["built_by_the_run"] == [], result["built_by_the_run"]
    assert {"mneme.models.agent.Agent", "mneme.models.run.Run", "mneme.settings.Settings"} <= {*result["after_import"]}


def test_the_models_a_run_does_not_use_are_never_built(endpoint: str) -> None:
    # When a fresh interpreter imports the handler and answers a first POST /v1/runs
    result = _probe(endpoint, _MODELS)
    models = result["models"]
    # Then the models of other routes that the run's modules define (exports, memory documents) were not built
    unbuilt = set(models) - set(result["after_import"]) - set(result["built_by_the_run"])
    assert {"ExportStatus", "MemoryDocument"} <= {name.rsplit(".", 1)[1] for name in unbuilt}
    assert len(unbuilt) > len(models) // 2
    # and the other routes' response views were not even defined
    assert not {"DocumentView", "AuditPageView"} & {name.rsplit(".", 1)[1] for name in models}


def test_a_run_with_the_opensearch_store_imports_no_opensearch_py_or_requests(endpoint: str) -> None:
    # When the memory store is OpenSearch Serverless (as deployed) and a fresh interpreter answers a first run
    result = _probe(endpoint, _OPENSEARCH, MNEME_OPENSEARCH_ENDPOINT="abc123.us-east-1.aoss.amazonaws.com")
    # Then the store was composed, and neither opensearch-py nor requests (both installed here) was imported
    assert (result["status"], result["store"], result["inner"]) == (
        200,
        "RevisionedMemoryStore",
        "OpenSearchMemoryStore",
    )
    assert result["loaded"] == []
