"""The orchestrator on Step Functions: start the agent-run machine for a run, complete approval tasks."""

from __future__ import annotations

import json
import re
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import OrchestratorUnavailable
from mneme.observability import traced

_ALREADY_DONE = frozenset({"TaskTimedOut", "TaskDoesNotExist", "InvalidToken"})
_NOT_RUNNING = frozenset({"ExecutionDoesNotExist", "ExecutionNotRunning"})
_NAME = re.compile(r"[^A-Za-z0-9_-]")


def execution_name(run_id: str) -> str:
    """Derived from the run id: starting the same run twice is answered by the existing execution."""
    return ("run-" + _NAME.sub("-", run_id))[:80]


class StepFunctionsOrchestrator:
    def __init__(self, client: Any, state_machine_arn: str) -> None:
        self._client = client
        self._arn = state_machine_arn

    @traced("stepfunctions.start")
    def start(self, run_id: str, *, depth: int) -> str:
        if not self._arn:
            raise OrchestratorUnavailable("no state machine is configured")
        payload = {"run_id": run_id, "depth": depth, "delegation_refused": False, "outcome": "start"}
        try:
            response = self._client.start_execution(
                stateMachineArn=self._arn, name=execution_name(run_id), input=json.dumps(payload)
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ExecutionAlreadyExists":
                return self._root_execution_arn(run_id)
            raise OrchestratorUnavailable(f"the state machine could not start run {run_id}: {exc}") from exc
        except BotoCoreError as exc:
            raise OrchestratorUnavailable(f"the state machine could not start run {run_id}: {exc}") from exc
        return str(response["executionArn"])

    @traced("stepfunctions.describe")
    def is_running(self, run_id: str, execution_id: str | None) -> bool:
        if not self._arn:
            return False
        arn = execution_id or self._arn.replace(":stateMachine:", ":execution:") + ":" + execution_name(run_id)
        try:
            response = self._client.describe_execution(executionArn=arn)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("ExecutionDoesNotExist", "InvalidArn"):
                return False
            raise OrchestratorUnavailable(f"the execution of run {run_id} could not be described: {exc}") from exc
        except BotoCoreError as exc:
            raise OrchestratorUnavailable(f"the execution of run {run_id} could not be described: {exc}") from exc
        return str(response.get("status")) in ("RUNNING", "PENDING_REDRIVE")

    @traced("stepfunctions.resume")
    def resume(self, task_token: str, output: dict[str, Any]) -> None:
        try:
            self._client.send_task_success(taskToken=task_token, output=json.dumps(output))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in _ALREADY_DONE:
                return  # the other side of the race resumed it first, or the wait ended: nothing to do
            raise OrchestratorUnavailable(f"the waiting run could not be resumed: {exc}") from exc
        except BotoCoreError as exc:
            raise OrchestratorUnavailable(f"the waiting run could not be resumed: {exc}") from exc

    @traced("stepfunctions.stop")
    def stop(self, run_id: str, *, execution_arn: str | None, depth: int, cause: str) -> bool:
        """StopExecution of the run's execution: the recorded one, or for a root the one named after it."""
        arn = execution_arn or (self._root_execution_arn(run_id) if depth == 0 and self._arn else None)
        if not arn:
            return False
        try:
            described = self._client.describe_execution(executionArn=arn)
            if described.get("status") != "RUNNING":
                return False
            self._client.stop_execution(executionArn=arn, error="RunCancelled", cause=cause[:32_000])
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in _NOT_RUNNING:
                return False
            raise OrchestratorUnavailable(f"the execution of run {run_id} could not be stopped: {exc}") from exc
        except BotoCoreError as exc:
            raise OrchestratorUnavailable(f"the execution of run {run_id} could not be stopped: {exc}") from exc
        return True

    def _root_execution_arn(self, run_id: str) -> str:
        return self._arn.replace(":stateMachine:", ":execution:") + ":" + execution_name(run_id)
