"""The real agent-run ASL executed by moto, with the run function invoked in-process."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.aws.sfn_orchestrator import StepFunctionsOrchestrator
from mneme.adapters.models.offline import OfflineModel
from mneme.models.run import Run
from mneme.ports.models import ModelClient
from mneme.runtime import Runtime
from mneme_local import sfn_emulation
from tests.support.deps import World, make_world
from tests.support.sam_template import ROOT

FUNCTION = "mneme-run"
_MACHINES = itertools.count(1)


@dataclass
class Machine:
    world: World
    runtime: Runtime
    sfn: Any
    arn: str
    function: str

    def wait(self, run_id: str, timeout: float = 30.0) -> Run:
        """Poll the run until it is finished (moto executes in background threads)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = self.world.deps.runs.get_run(run_id)
            if run is not None and run.status.finished:
                self.settle()
                return run
            time.sleep(0.05)
        raise AssertionError(f"run {run_id} did not finish: {self.world.deps.runs.get_run(run_id)}")

    def wait_status(self, run_id: str, status: str, timeout: float = 30.0) -> Run:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = self.world.deps.runs.get_run(run_id)
            if run is not None and run.status.value == status:
                return run
            time.sleep(0.05)
        raise AssertionError(f"run {run_id} never reached {status}: {self.world.deps.runs.get_run(run_id)}")

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until no execution is running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = self.sfn.list_executions(stateMachineArn=self.arn, statusFilter="RUNNING")["executions"]
            if not running:
                return
            time.sleep(0.05)

    def executions(self) -> list[dict[str, Any]]:
        return list(self.sfn.list_executions(stateMachineArn=self.arn)["executions"])


def start_machine(model: ModelClient, **settings: Any) -> Iterator[Machine]:
    """A fresh moto Step Functions with the real ASL. Each machine's Lambda has a name of its own: an
    execution left waiting by an earlier test (moto keeps its worker thread) then calls a function that is
    gone and fails, instead of stepping a run of this test's store that has the same deterministic id."""
    function = f"{FUNCTION}-{next(_MACHINES)}"
    with mock_aws(config=sfn_emulation.MOTO_CONFIG):  # type: ignore[call-overload]
        sfn_emulation.install()
        iam = boto3.client("iam", region_name="us-east-1")
        role = iam.create_role(RoleName="mneme", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        lam = boto3.client("lambda", region_name="us-east-1")
        fn = lam.create_function(
            FunctionName=function,
            Runtime="python3.13",
            Role=role,
            Handler="app.lambda_handler",
            Code={"ZipFile": b"not used: the handler runs in-process"},
        )
        definition = (ROOT / "statemachine" / "agent-run.asl.json").read_text()
        definition = definition.replace("${RunFunctionArn}", fn["FunctionArn"])
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        arn = sfn.create_state_machine(name="agent-run", definition=definition, roleArn=role)["stateMachineArn"]
        world = make_world(model, **settings)
        world.deps.orchestrator = StepFunctionsOrchestrator(sfn, arn)
        runtime = Runtime(world.deps)
        sfn_emulation.HANDLERS[function] = lambda event, _ctx: runtime.handle(event)
        machine = Machine(world, runtime, sfn, arn, function)
        try:
            yield machine
        finally:
            for execution in sfn.list_executions(stateMachineArn=arn, statusFilter="RUNNING")["executions"]:
                with contextlib.suppress(Exception):  # moto cannot stop an execution that has no worker yet
                    sfn.stop_execution(executionArn=execution["executionArn"])  # e.g. one left waiting for a person
            sfn_emulation.HANDLERS.pop(function, None)


@pytest.fixture
def machine() -> Iterator[Machine]:
    yield from start_machine(OfflineModel())


def output_of(execution: dict[str, Any], sfn: Any) -> dict[str, Any]:
    described = sfn.describe_execution(executionArn=execution["executionArn"])
    return dict(json.loads(described.get("output") or "{}"))
