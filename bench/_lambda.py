"""What the cold-start measure runs: the children's code, the local AWS stand-ins, Lambda's environment.

See bench/cold_start.py. The children are fresh python3.13 processes; these strings are their whole program.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _common import ROOT, RUN_FUNCTION, use_repo_paths

TABLES = {"MainTable": "mneme-main", "AuditTable": "mneme-audit"}
DIMENSION = 1024

RECORD = """
import os, pickle, botocore.handlers
calls = []
def _record(params, model, **_):  # the API parameters, before serialization
    calls.append((model.service_model.service_name, model.name, dict(params)))
botocore.handlers.BUILTIN_HANDLERS.append(("provide-client-params", _record))
"""
MNEME = """
import json, os, time
t0 = time.perf_counter()
import app
t1, init_done = time.perf_counter(), time.time()  # Lambda's init phase: the handler module's import
app._get_runtime()
t2 = time.perf_counter()
event = json.loads(os.environ["BENCH_EVENT"])
event["headers"]["idempotency-key"] = os.environ["BENCH_KEY"]
response = app.lambda_handler(event, None)
t3, ready = time.perf_counter(), time.time()
assert response["statusCode"] == 200, response
"""
PLAIN = """
import json, os, pickle, time
t0 = time.perf_counter()
import boto3
from botocore import xform_name
from botocore.config import Config
from botocore.exceptions import ClientError
from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection
t1 = time.perf_counter()
session = boto3.Session()
config = Config(retries={"mode": "standard", "total_max_attempts": 3})
clients = {name: session.client(name, config=config) for name in ("dynamodb", "bedrock-runtime")}
search = OpenSearch(
    hosts=[{"host": os.environ["MNEME_OPENSEARCH_ENDPOINT"], "port": 443}],
    http_auth=AWSV4SignerAuth(session.get_credentials(), os.environ["AWS_REGION"], "aoss"),
    use_ssl=True, verify_certs=True, connection_class=RequestsHttpConnection, timeout=10,
)
t2, init_done = time.perf_counter(), time.time()  # module level so far: Lambda's init phase
event = json.loads(os.environ["BENCH_EVENT"])
body = json.loads(event["body"])
with open(os.environ["BENCH_CALLS"], "rb") as file:
    calls = pickle.load(file)
for service, operation, params in calls:
    try:
        getattr(clients[service], xform_name(operation))(**params)
    except ClientError:
        pass  # a replayed conditional write finds its item: still one full round trip
response = {"statusCode": 200, "body": json.dumps({"agent_id": body["agent_id"], "output": "..."})}
t3, ready = time.perf_counter(), time.time()
"""
#: the plain handler with the OpenSearch client mneme uses (botocore signs and sends; no opensearch-py import):
#: what the plain handler costs when it makes the same choice, so that the floor below and mneme differ only by
#: the stack and by mneme's own code
PLAIN_BOTOCORE = PLAIN.replace(
    "from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection\n",
    "from botocore.auth import SigV4Auth\nfrom botocore.httpsession import URLLib3Session\n",
    1,
).replace(
    PLAIN[PLAIN.index("search = OpenSearch(") : PLAIN.index("t2, init_done")],
    "search = (URLLib3Session(timeout=10, max_pool_connections=20), session.get_credentials(), SigV4Auth)\n",
    1,
)
if "opensearchpy" in PLAIN_BOTOCORE or "URLLib3Session(timeout" not in PLAIN_BOTOCORE:  # an anchor moved in PLAIN
    raise RuntimeError("the botocore-client variant no longer derives from the plain handler's code")
#: the framework floor: the plain handler, plus what mneme's stack mandates and any handler built on it pays —
#: pydantic, Powertools' Logger, Metrics and Tracer (X-Ray, tracing on) and its HTTP resolver with request
#: validation, one route with one body model — and the same AWS calls made inside that route. The Tracer is
#: used as mneme uses it (no auto-patching; one subsegment per AWS call): the floor is what the stack costs
#: imported the usual way (each package's __init__ as written; mneme.lazy_packages defers three of them), so
#: that it over plain shows the stack's cost. It talks to OpenSearch as mneme does (PLAIN_BOTOCORE).
FRAMEWORK = PLAIN_BOTOCORE.replace(
    "t1 = time.perf_counter()\n",
    """from pydantic import BaseModel, Field
from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
t1 = time.perf_counter()
class RunBody(BaseModel):
    agent_id: str = Field(max_length=64)
    input: str = Field(max_length=100000)
    project_id: str | None = None
logger, metrics, tracer = Logger(), Metrics(), Tracer(auto_patch=False)
resolver = APIGatewayHttpResolver(enable_validation=True)
@resolver.post("/v1/runs")
def post_run(body: RunBody) -> dict:
    for service, operation, params in calls:
        try:
            with tracer.provider.in_subsegment(operation):
                getattr(clients[service], xform_name(operation))(**params)
        except ClientError:
            pass
    logger.info("run", agent_id=body.agent_id)
    metrics.add_metric(name="Runs", unit="Count", value=1)
    return {"agent_id": body.agent_id, "output": "..."}
""",
    1,
).replace(
    PLAIN[PLAIN.index("for service, operation") : PLAIN.index("t3, ready")],
    "response = resolver.resolve(event, None)\nmetrics.flush_metrics()\n"
    "assert response['statusCode'] == 200, response\n",
    1,
)
if "resolver.resolve" not in FRAMEWORK or FRAMEWORK.count("getattr(clients") != 1:  # an anchor moved in PLAIN
    raise RuntimeError("the framework-floor variant no longer derives from the plain handler's code")
REPORT = """
import resource  # right after the response: the process's CPU time (every thread) until then, without its exit
_usage = resource.getrusage(resource.RUSAGE_SELF)
status = open("/proc/self/status").read()
hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
print(json.dumps({
    "import": t1 - t0, "init": t2 - t1, "request": t3 - t2, "hwm_kib": hwm, "ready": ready, "init_done": init_done,
    "cpu_ready": _usage.ru_utime + _usage.ru_stime,
}))
"""


class _Bedrock(BaseHTTPRequestHandler):
    """``POST /model/{id}/invoke``: a Titan Text Embeddings V2 answer (a fixed unit vector)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        vector = [1.0 / DIMENSION**0.5] * DIMENSION
        body = json.dumps({"embedding": vector, "inputTextTokenCount": 8, "embeddingsByType": {"float": vector}})
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def start_aws() -> tuple[Any, Any, dict[str, str]]:
    """A moto server with the template's tables, the memory queue and alice's agent; a Bedrock stand-in."""
    import logging

    from moto.moto_server import threaded_moto_server
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    # moto's TransactWriteItems is not thread-safe ("dictionary changed size during iteration" on two
    # overlapping transactions, then a 500 that botocore retries with a back-off): serve one request at a
    # time, as DynamoDB serializes conflicting transactions. Both variants see the same server.
    dispatcher = threaded_moto_server.DomainDispatcherApplication
    serial = threading.Lock()

    class _Serial(dispatcher):  # type: ignore[misc, valid-type]
        def __call__(self, environ: Any, start_response: Any) -> Any:
            with serial:
                return super().__call__(environ, start_response)

    threaded_moto_server.DomainDispatcherApplication = _Serial  # type: ignore[misc]
    port = int(os.environ.get("MNEME_BENCH_PORT") or 0)
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=port + 2 if port else 0, verbose=False)
    moto.start()
    host, moto_port = moto.get_host_and_port()
    bedrock = ThreadingHTTPServer(("127.0.0.1", port + 3 if port else 0), _Bedrock)
    threading.Thread(target=bedrock.serve_forever, daemon=True).start()
    endpoint = f"http://{host}:{moto_port}"
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1")
    use_repo_paths()
    import boto3
    from tests.support.sam_template import create_tables

    from mneme.adapters.dynamo.config_store import ItemConfigStore
    from mneme.adapters.dynamo.items import MAIN_SCHEMA
    from mneme.adapters.dynamo.table import DynamoItemTable
    from mneme.models.agent import Agent

    dynamodb = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    create_tables(dynamodb, TABLES)
    queue = boto3.client("sqs", region_name="us-east-1", endpoint_url=endpoint).create_queue(QueueName="memory")
    config = ItemConfigStore(DynamoItemTable(dynamodb, TABLES["MainTable"], MAIN_SCHEMA))
    agent = Agent(
        agent_id="researcher",
        owner="alice",
        label="Researcher",
        model={"provider": "offline"},
        memory_policy={"auto_read_enabled": False},
    )
    config.put_agent(agent)
    urls = {"moto": endpoint, "bedrock": f"http://127.0.0.1:{bedrock.server_address[1]}", "queue": queue["QueueUrl"]}
    return moto, bedrock, urls


def lambda_env(urls: dict[str, str], code: list[Path]) -> dict[str, str]:
    keep = ("PATH", "HOME", "PYENV_ROOT", "LANG", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    event = json.loads((ROOT / "events" / "http-post-run.json").read_text())
    env.update(
        PYENV_VERSION="3.13.0",
        PYTHONPATH=os.pathsep.join(map(str, code)),
        PYTHONDONTWRITEBYTECODE="1",
        # the Lambda runtime's
        AWS_LAMBDA_FUNCTION_NAME="mneme-RunFunction",
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE="1024",
        AWS_LAMBDA_FUNCTION_VERSION="$LATEST",
        AWS_EXECUTION_ENV="AWS_Lambda_python3.13",
        AWS_REGION="us-east-1",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_SESSION_TOKEN="testing",
        LAMBDA_TASK_ROOT=str(RUN_FUNCTION),
        _X_AMZN_TRACE_ID="Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        AWS_XRAY_DAEMON_ADDRESS="127.0.0.1:2000",
        AWS_XRAY_CONTEXT_MISSING="LOG_ERROR",
        # template.yaml's Globals and RunFunction
        POWERTOOLS_SERVICE_NAME="mneme",
        POWERTOOLS_METRICS_NAMESPACE="mneme",
        POWERTOOLS_LOG_LEVEL="INFO",
        PYDANTIC_DISABLE_PLUGINS="__all__",
        MNEME_TABLE=TABLES["MainTable"],
        MNEME_AUDIT_TABLE=TABLES["AuditTable"],
        MNEME_EMBEDDING_DIMENSION=str(DIMENSION),
        MNEME_EMBEDDING_MODEL_ID="amazon.titan-embed-text-v2:0",
        MNEME_OPENSEARCH_ENDPOINT="abcdefghij0123456789.us-east-1.aoss.amazonaws.com",
        MNEME_OPENSEARCH_SERVICE="aoss",
        MNEME_OPENSEARCH_INDEX="mneme-memory",
        MNEME_MEMORY_QUEUE_URL=urls["queue"],
        MNEME_STATE_MACHINE_ARN="arn:aws:states:us-east-1:123456789012:stateMachine:mneme-agent-run",
        MNEME_MODEL_PROVIDER="offline",
        MNEME_SUMMARY_MODEL_ID="",
        # the template's RunsPerUserPerMinute, at its highest: the measure starts 20-odd cold runs of one user
        # within a minute, which a fast host turns into more than the default 60 (a 429 failed the measure at
        # 18:43 UTC on 2026-12-01); the start is still counted, so the same calls are made
        MNEME_RUNS_PER_USER_PER_MINUTE="100000",
        # the local AWS stand-ins
        AWS_ENDPOINT_URL=urls["moto"],
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME=urls["bedrock"],
        BENCH_EVENT=json.dumps(event),
    )
    return env
