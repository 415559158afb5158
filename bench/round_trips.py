"""Measure 3 — round trips: every AWS API call of a fast-path run and of one delegation hop.

Real boto3 clients against moto (DynamoDB tables from template.yaml, the SQS memory queue, Step Functions
executing the real ASL) with mneme's AWS adapters; fakes for the model (Bedrock Converse), the embedder
(Bedrock InvokeModel) and the memory store (OpenSearch k-NN search), each counted as the AWS call it stands
for. botocore ``before-call`` / ``after-call`` hooks record each call with its interval; every call (and
every fake) is given the same simulated network latency, so calls that the code runs concurrently overlap
and count as one sequential step on the critical path. Step Functions state transitions come from
``get_execution_history``.

Run: ``.venv/bin/python bench/round_trips.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _calls import LATENCY, Call, Counted, Recorder, serial_transactions, steps
from _common import ROOT, header, use_repo_paths, verdict

use_repo_paths()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")  # keep the run's INFO lines and EMF metrics off the report
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

REGION = "us-east-1"
TABLES = {"MainTable": "mneme-main", "AuditTable": "mneme-audit"}
LONG_INPUT = "Please remember that our quarterly planning meeting moved to Thursday afternoons from now on, thanks."


def build(recorder: Recorder, sfn_arn: str = "", model: Any = None) -> tuple[Any, Any]:
    import boto3
    from tests.fakes.embedder import HashingEmbedder
    from tests.fakes.memory_store import InMemoryMemoryStore
    from tests.fakes.ports import FakeToolInvoker, FixedModels
    from tests.support.sam_template import create_tables

    from mneme.adapters.aws.sfn_orchestrator import StepFunctionsOrchestrator
    from mneme.adapters.aws.sqs_queue import SqsMemoryQueue
    from mneme.adapters.dynamo.items import AUDIT_SCHEMA, MAIN_SCHEMA
    from mneme.adapters.dynamo.stores import stores_over
    from mneme.adapters.dynamo.table import DynamoItemTable
    from mneme.adapters.models.offline import OfflineModel
    from mneme.clock import SystemClock
    from mneme.engine.deps import Deps
    from mneme.settings import Settings

    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_tables(dynamodb, TABLES)
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url = sqs.create_queue(QueueName="mneme-memory")["QueueUrl"]
    sfn = boto3.client("stepfunctions", region_name=REGION)
    settings = Settings.model_validate(
        {
            "MNEME_MODE": "aws",
            "MNEME_TABLE": TABLES["MainTable"],
            "MNEME_AUDIT_TABLE": TABLES["AuditTable"],
            "MNEME_MEMORY_QUEUE_URL": queue_url,
            "MNEME_STATE_MACHINE_ARN": sfn_arn,
        }
    )
    clock = SystemClock()
    main = DynamoItemTable(dynamodb, settings.table_name, MAIN_SCHEMA)
    store, embedder = InMemoryMemoryStore(), HashingEmbedder()
    deps = Deps(
        settings=settings,
        **stores_over(main, DynamoItemTable(dynamodb, settings.audit_table_name, AUDIT_SCHEMA), clock).ports(),
        models=FixedModels(Counted(model or OfflineModel(), recorder, {"converse": "bedrock-runtime:Converse"})),
        queue=SqsMemoryQueue(sqs, queue_url),
        orchestrator=StepFunctionsOrchestrator(sfn, sfn_arn),
        tools=FakeToolInvoker(),
        clock=clock,
        memory=Counted(store, recorder, {"search": "aoss:knn-search (_search)", "put": "aoss:_bulk"}),
        embedder=Counted(embedder, recorder, {"embed": "bedrock-runtime:InvokeModel (embedding)"}),
    )
    return deps, (store, embedder)


def seed(deps: Any, fakes: tuple[Any, Any], agents: dict[str, dict[str, Any]]) -> None:
    from mneme.engine.memory_io.ops import new_document
    from mneme.models.agent import Agent

    for agent_id, fields in agents.items():
        deps.config.put_agent(Agent(agent_id=agent_id, owner="alice", label=agent_id.title(), **fields))
    store, embedder = fakes
    texts = [
        "Our quarterly planning meeting is on Thursday afternoons.",
        "Alice prefers green tea over coffee.",
        "The project deadline is the end of the month.",
        "Planning meetings take place in room 4.",
        "Alice's manager is Bob.",
    ]
    docs = [
        new_document(f"m{i}", "vector.agent.alice.memory", "alice", text, clock=deps.clock)
        for i, text in enumerate(texts)
    ]
    store.put(list(zip(docs, embedder.embed(texts), strict=True)))


def http_event(body: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((ROOT / "events" / "http-post-run.json").read_text())
    event["headers"].pop("idempotency-key", None)
    event["body"] = json.dumps(body)
    return event


def report(title: str, calls: list[Call], *, by_invocation: bool = False) -> tuple[int, int]:
    sequential = steps(calls)
    print(f"  {title}: {len(calls)} calls, {sequential} sequential steps on the critical path")
    counts = Counter(c.label for c in calls)
    for label, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"    {count:3d} × {label}")
    print("    in order (✓ = sequential step; ∥ = overlaps the previous call):")
    horizon = -1.0
    for call in calls:
        mark = "✓" if call.start >= horizon else "∥"
        horizon = max(horizon, call.end)
        where = f"  [{call.invocation}]" if by_invocation and call.invocation else ""
        origin = f"  ({call.origin})" if call.origin else ""
        print(f"      {mark} {call.label:<42}{origin}{where}")
    return len(calls), sequential


def fast_path() -> dict[str, int]:
    from moto import mock_aws

    from mneme.runtime import Runtime

    with mock_aws(), serial_transactions(), Recorder().installed() as recorder:
        deps, fakes = build(recorder)
        seed(deps, fakes, {"master": {"memory_policy": {"allow_write": True}, "model": {"provider": "offline"}}})
        runtime = Runtime(deps)
        recorder.take()  # seeding is not part of the run
        first = runtime.handle(http_event({"agent_id": "master", "input": LONG_INPUT}))
        assert first["statusCode"] == 200, first
        calls1 = recorder.take()
        chat_id = json.loads(first["body"])["chat_id"]
        second = runtime.handle(http_event({"agent_id": "master", "input": LONG_INPUT, "chat_id": chat_id}))
        assert second["statusCode"] == 200, second
        calls2 = recorder.take()
    total1, seq1 = report("fast path, new chat (POST /v1/runs, auto-inject + auto-write)", calls1)
    total2, seq2 = report("fast path, second turn of the chat", calls2)
    for name, total, seq in (("new chat", total1, seq1), ("second turn", total2, seq2)):
        print(
            f"  goal ≤ 8 calls and ≤ 5 sequential — {name}: {total} calls → {verdict(total <= 8)}; "
            f"{seq} sequential → {verdict(seq <= 5)}"
        )
    print("  Step Functions state transitions on the fast path: 0 (no StartExecution call above)")
    return {"fast_total": total1, "fast_sequential": seq1, "turn2_total": total2, "turn2_sequential": seq2}


def delegation_hop() -> dict[str, int]:  # noqa: PLR0915 - one scenario, read top to bottom
    import boto3
    from moto import mock_aws

    from mneme.runtime import Runtime
    from mneme_local import sfn_emulation

    with (
        mock_aws(config=sfn_emulation.MOTO_CONFIG),  # type: ignore[call-overload]
        serial_transactions(),
        Recorder().installed() as recorder,
    ):
        sfn_emulation.install()
        iam = boto3.client("iam", region_name=REGION)
        role = iam.create_role(RoleName="mneme", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        lam = boto3.client("lambda", region_name=REGION)
        fn = lam.create_function(
            FunctionName="mneme-run",
            Runtime="python3.13",
            Role=role,
            Handler="app.lambda_handler",
            Code={"ZipFile": b"not used: the handler runs in-process"},
        )
        definition = (ROOT / "statemachine" / "agent-run.asl.json").read_text()
        definition = definition.replace("${RunFunctionArn}", fn["FunctionArn"])
        sfn_plain = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn_plain.create_state_machine(name="agent-run", definition=definition, roleArn=role)["stateMachineArn"]
        deps, fakes = build(recorder, sfn_arn=arn)
        seed(
            deps,
            fakes,
            {
                "master": {"tools": ["delegate-to-agent"], "delegates": ["b"], "model": {"provider": "offline"}},
                "b": {"model": {"provider": "offline"}},
            },
        )
        runtime = Runtime(deps)

        def handler(event: dict[str, Any], _ctx: Any) -> Any:
            recorder.invocation = f"step {event.get('action')} {str(event.get('run_id'))[:8]}"
            try:
                return runtime.handle(event)
            finally:
                recorder.invocation = ""

        sfn_emulation.HANDLERS["mneme-run"] = handler
        recorder.take()
        recorder.invocation = "API POST /v1/runs (no delegation)"
        plain = runtime.handle(http_event({"agent_id": "master", "input": "say hello"}))
        assert plain["statusCode"] == 200, plain
        recorder.invocation = ""
        plain_calls = recorder.take()
        recorder.invocation = "API POST /v1/runs"
        answer = runtime.handle(http_event({"agent_id": "master", "input": "/delegate b :: say hello"}))
        recorder.invocation = ""
        assert answer["statusCode"] == 202, answer
        run_id = json.loads(answer["body"])["run_id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with recorder.observing():  # the bench polling for the end: not part of the run
                running = sfn_plain.list_executions(stateMachineArn=arn, statusFilter="RUNNING")["executions"]
                run = deps.runs.get_run(run_id)
            if not running and run is not None and run.status.finished:
                break
            time.sleep(0.05)
        every = recorder.take()
        calls = [c for c in every if c.origin]  # made by mneme's code, on whichever thread
        service = [c for c in every if not c.origin]  # moto's Step Functions executor calling the Lambda
        recorder.observer.active = True  # reading the history is the bench's, not the run's
        executions = sfn_plain.list_executions(stateMachineArn=arn)["executions"]
        transitions: list[tuple[str, int, int, list[str]]] = []
        for execution in executions:
            events = sfn_plain.get_execution_history(executionArn=execution["executionArn"], maxResults=1000)["events"]
            entered = [e for e in events if e["type"].endswith("StateEntered")]
            names = [e["stateEnteredEventDetails"]["name"] for e in entered]
            transitions.append((str(execution["status"]), len(entered), len(events), names))
        run = deps.runs.get_run(run_id)
        assert run is not None and run.status.value == "succeeded", run
    total, sequential = report("one delegation hop (master → b), all invocations", calls, by_invocation=True)
    pools = ("mneme-io", "titan-embed")  # the engine's and the embedder's thread pools
    threads = Counter("pool" if c.thread.startswith(pools) else "own" for c in calls)
    print(
        f"    on threads: {threads['own']} on the invocations' own threads (API: the caller's; steps: moto's "
        f"executor), {threads['pool']} on mneme's worker threads ({', '.join(pools)})"
    )
    if service:
        print(f"    plus {len(service)} calls by the Step Functions service itself (not mneme's code):")
        for label, count in sorted(Counter(c.label for c in service).items()):
            print(f"      {count:3d} × {label}")
    print("  Step Functions executions (status, states entered, history events, states):")
    for status, n_entered, n_events, states in transitions:
        print(f"    {status:<10}{n_entered:3d} states entered, {n_events:3d} events: {' → '.join(states)}")
    all_entered = sum(t[1] for t in transitions)
    per_hop = all_entered - 3  # a run without delegation enters Step → Route → Done: 3 states
    print(
        f"  state transitions: {all_entered} in all; caused by the hop (child execution + the parent's extra "
        f"states) {per_hop} → goal ≤ 6: {verdict(per_hop <= 6)}"
    )
    hop_calls = total - len(plain_calls)
    print(
        f"  calls per hop: {total} for the delegated run − {len(plain_calls)} for the same agent answering without "
        f"delegating (fast path) = {hop_calls} calls added by one hop; {per_hop} state transitions per hop"
    )
    return {"hop_total": total, "hop_sequential": sequential, "hop_transitions": per_hop, "hop_calls": hop_calls}


def main() -> dict[str, int]:
    header(f"round trips (moto + botocore hooks; {LATENCY * 1000:.0f} ms simulated latency per call)")
    return {**fast_path(), **delegation_hop()}


def bench(full: bool) -> dict[str, int]:
    return main()


if __name__ == "__main__":
    main()
