"""The cold-start rules (``mneme.cold_start``) hold for the run function's handler, and a broken rule is reported
with the chain of imports that broke it.

A fresh interpreter (this test process has long imported everything) records who imported each module
(tests/support/import_chains.py), imports the handler (Lambda's init phase), then answers a first
``POST /v1/runs`` with the deployed environment (DynamoDB a moto server, the OpenSearch store composed). The
rules it checks are the module's own lists, so a rule added there is checked here without a test change."""

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
from tests.support.import_chains import IMPORT_CHAINS
from tests.support.sam_template import create_tables

ROOT = Path(__file__).resolve().parents[2]
# moto's servers share one in-process backend: tables of their own, apart from the other cold-start tests'
TABLES = {"MainTable": "rules-main", "AuditTable": "rules-audit"}
pytestmark = pytest.mark.slow

_PROBE = """
import json, os, sys
sys.path[:0] = {paths}
{import_chains}
import mneme.cold_start as rules
{tamper}


def broken(rules_by_prefix):
    found = []
    for prefix, why in rules_by_prefix.items():
        modules = loaded((prefix,))
        if modules:  # the package itself if it was loaded, else its first module loaded
            found.append(f"{{chain_of(prefix if prefix in modules else modules[0])}}  [rule: {{why}}]")
    return found


import app
report = {{
    "init_broken": broken({{**rules.NOT_AT_INIT, **rules.NOT_ON_A_FIRST_RUN}}),
    "not_preloaded": [name for name in rules.PRELOADED if name not in sys.modules],
    "not_prebuilt": [entry for entry in rules.PREBUILT
        if not getattr(sys.modules[entry.split(":")[0]], entry.split(":")[1]).__pydantic_complete__],
}}
event = json.load(open({event!r}))
event["headers"]["idempotency-key"] = os.urandom(8).hex()
response = app.lambda_handler(event, None)
report.update(
    status=response["statusCode"],
    traced="aws_xray_sdk.core" in sys.modules,
    run_broken=broken(rules.NOT_ON_A_FIRST_RUN),
    routers=loaded([f"mneme.api.{{name}}" for name in rules.ROUTERS]),
)
print(json.dumps(report))
"""

#: a module the init phase preloads, which imports another, which imports boto3 (two files on the path)
_OFFENDER = """
import pathlib, tempfile
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "offender_a.py").write_text("import offender_b\\n")
(folder / "offender_b.py").write_text("import boto3\\n")
sys.path.insert(0, str(folder))
rules.PRELOADED = (*rules.PRELOADED, "offender_a")
"""

#: the router map sends a first run to one router more than it needs
_GREEDY_MAP = """
rules.ROUTERS_BY_PATH["/v1/runs"] = ("run_routes", "config_routes")
"""

#: Powertools' packages load as their __init__ says (no mneme.lazy_packages)
_EAGER_PACKAGES = """
import mneme.lazy_packages
mneme.lazy_packages.PACKAGES = {}
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
    create_tables(client, TABLES)
    agent = Agent(
        agent_id="researcher",
        owner="alice",
        label="Researcher",
        model={"provider": "offline"},
        memory_policy={"auto_read_enabled": False, "allow_write": False},
    )
    ItemConfigStore(DynamoItemTable(client, TABLES["MainTable"], MAIN_SCHEMA)).put_agent(agent)
    try:
        yield url
    finally:
        server.stop()


def _probe(endpoint: str, tamper: str = "") -> dict[str, Any]:
    paths = [str(ROOT), str(ROOT / "functions" / "run"), str(ROOT / "layers" / "mneme")]
    code = _PROBE.format(
        paths=paths, import_chains=IMPORT_CHAINS, tamper=tamper, event=str(ROOT / "events" / "http-post-run.json")
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "MNEME_TABLE": TABLES["MainTable"],
        "MNEME_AUDIT_TABLE": TABLES["AuditTable"],
        "MNEME_MODEL_PROVIDER": "offline",
        "MNEME_OPENSEARCH_ENDPOINT": "abc123.us-east-1.aoss.amazonaws.com",
        # tracing active, as in Lambda: the first traced call loads the X-Ray SDK (its daemon: a closed port)
        "AWS_LAMBDA_FUNCTION_NAME": "mneme-RunFunction",
        "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9",
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def report(endpoint: str) -> dict[str, Any]:
    return _probe(endpoint)


def test_the_init_phase_loads_nothing_the_rules_keep_for_later(report: dict[str, Any]) -> None:
    # Then no module kept for the first event, or never loaded by a first run, was loaded by the handler's import
    assert report["init_broken"] == [], "\n".join(report["init_broken"])


def test_the_init_phase_preloads_and_builds_what_the_rules_list(report: dict[str, Any]) -> None:
    assert (report["not_preloaded"], report["not_prebuilt"]) == ([], [])


def test_a_first_run_loads_nothing_the_rules_forbid(report: dict[str, Any]) -> None:
    # Then the first POST /v1/runs answered, traced as in Lambda, having loaded none of the modules a first run must
    # not load
    assert (report["status"], report["traced"]) == (200, True)
    assert report["run_broken"] == [], "\n".join(report["run_broken"])


def test_a_first_run_loads_only_the_router_its_path_needs(report: dict[str, Any]) -> None:
    assert report["routers"] == ["mneme.api.run_routes"]


def test_a_module_preloaded_against_the_rules_is_reported_with_the_chain_that_imported_it(endpoint: str) -> None:
    # When the init phase preloads a module that imports, through another, a package a first run must not load
    result = _probe(endpoint, _OFFENDER)
    # Then the broken rule names the whole chain, from the package to the handler's import, and the rule's reason
    chain = "boto3 ← offender_b ← offender_a ← mneme.cold_start.preload() ← app ← __main__"
    reason = "the clients come from a botocore session (boto3.client is botocore's create_client)"
    assert result["init_broken"][0] == f"{chain}  [rule: {reason}]"
    assert result["init_broken"][1].startswith("s3transfer ← boto3.compat ← boto3 ← offender_b")  # boto3's own
    assert result["run_broken"][0].startswith(chain)  # still loaded after the run: reported there too


def test_a_router_loaded_by_a_first_run_against_the_rules_is_reported_with_the_call_that_loaded_it(
    endpoint: str,
) -> None:
    # When the router map gives a first POST /v1/runs a router it does not need
    result = _probe(endpoint, _GREEDY_MAP)
    # Then the init phase is still clean, and the run's broken rule names the router and the calls that loaded it
    assert result["init_broken"] == []
    routers = [line for line in result["run_broken"] if line.startswith("mneme.api.config_routes ")]
    assert len(routers) == 1
    assert routers[0].startswith("mneme.api.config_routes ← mneme.api.app.MnemeApp.include() ← ")
    assert "mneme.runtime.Runtime._dispatch() ← " in routers[0] and routers[0].endswith(
        "app.lambda_handler() ← __main__  [rule: a router loads with the first request for its paths]"
    )
    # and what that router imports against a rule is reported through it
    assert {line.split(" ← ")[2] for line in result["run_broken"] if line not in routers} == {"mneme.api.config_routes"}


def test_powertools_eager_package_init_is_reported_when_the_packages_are_not_made_lazy(endpoint: str) -> None:
    # When the init phase imports Powertools' event_handler and data_classes packages as their __init__ says
    result = _probe(endpoint, _EAGER_PACKAGES)
    # Then the rules name AppSync's resolver, asyncio and an unused event source, each through the package's __init__
    broken = {line.split(" ← ")[0]: line for line in result["init_broken"]}
    through_init = "aws_lambda_powertools.event_handler.appsync ← aws_lambda_powertools.event_handler ← "
    assert broken["aws_lambda_powertools.event_handler.appsync"].startswith(through_init)
    assert through_init in broken["asyncio"]
    kafka = broken["aws_lambda_powertools.utilities.data_classes.kafka_event"]
    assert kafka.split(" ← ")[1] == "aws_lambda_powertools.utilities.data_classes"
    assert result["status"] == 200  # the run itself does not depend on it


def test_wrapt_eager_package_init_is_reported_when_only_it_is_not_made_lazy(endpoint: str) -> None:
    # When wrapt loads as its __init__ says (the Powertools packages still lazy)
    result = _probe(endpoint, 'import mneme.lazy_packages\nmneme.lazy_packages.PACKAGES.pop("wrapt")\n')
    # Then the init phase is clean, and the first run's traced call is reported loading asyncio through wrapt
    assert result["init_broken"] == []
    asyncio = [line for line in result["run_broken"] if line.startswith("asyncio ← ")]
    assert len(asyncio) == 1 and asyncio[0].startswith("asyncio ← wrapt.synchronization ← ")
    assert " ← wrapt ← aws_xray_sdk." in asyncio[0]
