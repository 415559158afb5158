"""Make moto 5.2.5 execute the agent-run state machine for real: nested `.sync:2` executions, Lambda tasks
run in-process.

Used by the local embedded mode and by the functional tests. Three fixes, as measured in
../shared/reference/local-testing.md (moto issue #10076; moto's master branch carries the same
normalisation). Drop this module when a moto release includes the fix.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import botocore.session
from botocore.model import OperationModel
from moto.awslambda_simple.models import LambdaSimpleBackend
from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service as sts

Handler = Callable[[dict[str, Any], Any], Any]
HANDLERS: dict[str, Handler] = {}
MOTO_CONFIG = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}


@cache
def _operation(service: str, action_snake: str) -> OperationModel:
    model = botocore.session.get_session().get_service_model(service)
    for name in model.operation_names:
        if model.operation_model(name).name and _snake(name) == action_snake:
            return model.operation_model(name)
    raise KeyError(f"{service}.{action_snake}")


def _snake(name: str) -> str:
    from botocore import xform_name

    return str(xform_name(name))


def _normalise_parameters(
    self: Any, parameters: dict[str, Any], boto_service_name: Any = None, service_action_name: Any = None
) -> None:
    op = _operation(self._get_boto_service_name(boto_service_name), self._get_boto_service_action(service_action_name))
    if op.input_shape is not None:
        self._to_boto_request(parameters, op.input_shape)


def _normalise_response(
    self: Any, response: Any, boto_service_name: Any = None, service_action_name: Any = None
) -> None:
    op = _operation(self._get_boto_service_name(boto_service_name), self._get_boto_service_action(service_action_name))
    if op.output_shape is not None:
        self._from_boto_response(response, op.output_shape)


_original_value = sts.StateTaskService._from_boto_response_value


def _from_boto_response_value(response_value: Any) -> Any:
    if isinstance(response_value, dt.datetime):
        return response_value.timestamp()
    return _original_value(response_value)


def _invoke(self: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response_headers: Any) -> bytes:
    """Run the registered handler in-process; an exception becomes a Lambda function error (errorType = class
    name), as on AWS, so the state machine's Retry / Catch see the same error names."""
    fn = self.get_function(function_name, qualifier)
    try:
        result = HANDLERS[fn.function_name](json.loads(body or "{}"), None)
    except Exception as exc:
        response_headers["x-amz-function-error"] = "Unhandled"
        return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)}).encode()
    return json.dumps(result).encode()


def install() -> None:
    """Apply the fixes (idempotent)."""
    sts.StateTaskService._normalise_parameters = _normalise_parameters  # type: ignore[method-assign]
    sts.StateTaskService._normalise_response = _normalise_response  # type: ignore[method-assign]
    sts.StateTaskService._from_boto_response_value = staticmethod(_from_boto_response_value)  # type: ignore[method-assign]
    LambdaSimpleBackend.invoke = _invoke  # type: ignore[method-assign]
