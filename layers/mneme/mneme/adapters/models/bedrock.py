"""Bedrock Converse adapter of the ModelClient port (SPEC §3).

A call gets a timeout from the run's budget (``timeout_seconds``, engine/runs/budget.py): it is made with a
``bedrock-runtime`` client whose read timeout fits what is left (:class:`~mneme.adapters.aws.timed_calls.
TimedClients`, one attempt each), and retried here — throttling, 5xx, dropped connections — only while
another attempt fits (:func:`~mneme.adapters.aws.timed_calls.call_within`). A read timeout (or Bedrock's own
``ModelTimeoutException``) is :class:`ModelTimedOut` and never retried: a long generation is billed once.
Without a timeout the client given is used as it is. What fails is translated here (an error inside a
ConverseStream carries the stream member's name, ``throttlingException``: it is read as ``ThrottlingException``):

* ``ThrottlingException`` / ``ServiceQuotaExceededException`` → :class:`ModelThrottled`;
* ``ValidationException`` / ``AccessDeniedException`` / ``ResourceNotFoundException`` →
  :class:`ModelRequestRejected` (a :class:`ModelUnavailable` whose retry cannot help: the request, the
  model id or the permissions are wrong);
* every other service error (``ServiceUnavailableException``, ``InternalServerException``,
  ``ModelTimeoutException``, ``ModelNotReadyException``, ``ModelErrorException``, ...) and every
  connection / timeout error → :class:`ModelUnavailable`.

Reasoning (extended thinking, issue 16): ``reasoningContent`` blocks of a reply are kept verbatim (text +
signature, or redacted content). Redacted content is bytes on the wire; the port carries it as base64 text
(so the checkpoint and the recorded request stay JSON) and :meth:`BedrockModel.converse` turns it back into
the same bytes when the block is replayed.

Stop reasons are passed through unchanged (``end_turn``, ``tool_use``, ``max_tokens``,
``guardrail_intervened``, ``content_filtered``, ``model_context_window_exceeded``, and values newer
than this code); a missing one becomes ``"unknown"``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError, ReadTimeoutError

from mneme.adapters.aws.timed_calls import Attempts, Retryable, TimedClients, call_within
from mneme.errors import ModelRequestRejected, ModelThrottled, ModelTimedOut, ModelUnavailable
from mneme.models.run import Usage
from mneme.observability import traced
from mneme.ports.models import ModelResponse

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime import BedrockRuntimeClient

THROTTLING_CODES = frozenset({"ThrottlingException", "ServiceQuotaExceededException", "TooManyRequestsException"})
#: a 429 AWS says to retry ("the AWS SDK will automatically retry the operation up to 5 times") that botocore's
#: retry modes do not: a model (an imported one, say) warming up; retried with backoff like throttling
NOT_READY_CODE = "ModelNotReadyException"
REJECTED_CODES = frozenset({"ValidationException", "AccessDeniedException", "ResourceNotFoundException"})
UNKNOWN_STOP_REASON = "unknown"


def bedrock_client_config(max_attempts: int = 3, *, read_timeout: float = 60.0, connect_timeout: float = 5.0) -> Config:
    """The botocore Config of the ``bedrock-runtime`` client: standard retries and explicit timeouts.

    ``max_attempts`` counts every attempt, the first call included (the meaning of ``AWS_MAX_ATTEMPTS``):
    it is passed as botocore's ``total_max_attempts``, because botocore's own ``retries["max_attempts"]``
    counts retries only (``max_attempts=2`` there means up to three calls)."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    return Config(
        retries={"mode": "standard", "total_max_attempts": max_attempts},
        read_timeout=read_timeout,
        connect_timeout=connect_timeout,
    )


class BedrockModel:
    """Sends the Converse request exactly as mneme recorded it and returns a :class:`ModelResponse`."""

    def __init__(
        self,
        client: BedrockRuntimeClient,
        *,
        timed: TimedClients | None = None,
        attempts: Attempts | None = None,
    ) -> None:
        self._client = client
        self._timed = timed
        self._attempts = attempts or Attempts(max_attempts=1)

    @traced("bedrock.converse")
    def converse(self, request: dict[str, Any], *, timeout_seconds: float | None = None) -> ModelResponse:
        model_id = str(request.get("modelId", ""))
        params = {key: value for key, value in request.items() if value is not None}
        if "messages" in params:
            params["messages"] = [_wire_message(message) for message in params["messages"]]

        def attempt(read_timeout: float | None) -> dict[str, Any]:
            client: Any = self._client
            if read_timeout is not None and self._timed is not None:
                client = self._timed.for_read_timeout(read_timeout)
            try:
                return dict(client.converse(**params))
            except ClientError as exc:
                error = _translate(exc, model_id)
                raise error if isinstance(error, ModelRequestRejected | ModelTimedOut) else Retryable(error) from exc
            except ReadTimeoutError as exc:
                raise ModelTimedOut(
                    f"Bedrock model {model_id!r} gave no answer within {read_timeout or 'its read timeout'} s",
                    details={"model_id": model_id},
                ) from exc
            except ParamValidationError as exc:
                raise ModelRequestRejected(f"the request for Bedrock model {model_id!r} is invalid: {exc}") from exc
            except BotoCoreError as exc:  # a connection failure
                raise Retryable(
                    ModelUnavailable(
                        f"Bedrock model {model_id!r} could not be reached: {exc}",
                        details={"model_id": model_id, "error": type(exc).__name__},
                    )
                ) from exc

        response = call_within(attempt, timeout_seconds=timeout_seconds, attempts=self._attempts)
        return parse_converse_response(response)

    @traced("bedrock.converse_stream")
    def converse_stream(
        self, request: dict[str, Any], on_text: Callable[[str], None], *, timeout_seconds: float | None = None
    ) -> ModelResponse:
        """ConverseStream of the same request: text deltas go to ``on_text`` as they arrive; the answer is
        the one Converse would give (adapters/models/bedrock_stream.py). Errors translate as for ``converse``; one
        attempt, within ``timeout_seconds`` (a stream already partly shown is never replayed)."""
        from mneme.adapters.models.bedrock_stream import fold_stream

        model_id = str(request.get("modelId", ""))
        params = {key: value for key, value in request.items() if value is not None}
        if "messages" in params:
            params["messages"] = [_wire_message(message) for message in params["messages"]]
        client: Any = self._client
        if timeout_seconds is not None and self._timed is not None:
            client = self._timed.for_read_timeout(timeout_seconds)
        try:
            response = client.converse_stream(**params)
            folded = fold_stream(response["stream"], on_text)
        except ClientError as exc:  # EventStreamError (an error inside the stream) is a ClientError too
            raise _translate(exc, model_id) from exc
        except ReadTimeoutError as exc:
            raise ModelTimedOut(
                f"Bedrock model {model_id!r} gave no answer within {timeout_seconds or 'its read timeout'} s",
                details={"model_id": model_id},
            ) from exc
        except BotoCoreError as exc:
            raise ModelUnavailable(
                f"Bedrock model {model_id!r} could not be reached: {exc}",
                details={"model_id": model_id, "error": type(exc).__name__},
            ) from exc
        return parse_converse_response(folded)


def parse_converse_response(response: dict[str, Any]) -> ModelResponse:
    """A Converse response (``output.message.content``, ``stopReason``, ``usage``) as a ModelResponse.

    ``text``, ``toolUse`` and ``reasoningContent`` blocks are kept (other block types are not part of mneme's
    conversation model)."""
    message = (response.get("output") or {}).get("message") or {}
    content: list[dict[str, Any]] = []
    for block in message.get("content") or []:
        if "reasoningContent" in block:
            content.append(_port_reasoning(block["reasoningContent"]))
        elif "text" in block:
            content.append({"text": block["text"]})
        elif "toolUse" in block:
            tool_use = block["toolUse"]
            content.append(
                {
                    "toolUse": {
                        "toolUseId": tool_use["toolUseId"],
                        "name": tool_use["name"],
                        "input": tool_use.get("input") or {},
                    }
                }
            )
    stop_reason = str(response.get("stopReason") or UNKNOWN_STOP_REASON)
    return ModelResponse(content=content, stop_reason=stop_reason, usage=parse_usage(response.get("usage")))


def _port_reasoning(reasoning: dict[str, Any]) -> dict[str, Any]:
    """A reply's reasoning block as the port carries it: redacted bytes become base64 text."""
    if "redactedContent" in reasoning:
        raw = reasoning["redactedContent"]
        data = raw if isinstance(raw, bytes | bytearray) else str(raw).encode()
        return {"reasoningContent": {"redactedContent": base64.b64encode(data).decode("ascii")}}
    text = dict(reasoning.get("reasoningText") or {})
    return {"reasoningContent": {"reasoningText": text}}


def _wire_message(message: dict[str, Any]) -> dict[str, Any]:
    """A request message as botocore takes it: redacted reasoning back to its bytes."""
    blocks = message.get("content") or []
    if not any("reasoningContent" in block for block in blocks):
        return message
    wired: list[dict[str, Any]] = []
    for block in blocks:
        redacted = (block.get("reasoningContent") or {}).get("redactedContent")
        wired.append(
            {"reasoningContent": {"redactedContent": base64.b64decode(redacted)}}
            if isinstance(redacted, str)
            else block
        )
    return {**message, "content": wired}


def parse_usage(usage: Any) -> Usage:
    """Converse ``TokenUsage`` → Usage; absent cache fields count as 0."""
    if not isinstance(usage, dict):
        return Usage()

    def count(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, int | float) else 0

    return Usage(
        input_tokens=count("inputTokens"),
        output_tokens=count("outputTokens"),
        cache_read_tokens=count("cacheReadInputTokens"),
        cache_write_tokens=count("cacheWriteInputTokens"),
    )


def _translate(exc: ClientError, model_id: str) -> ModelUnavailable:
    error = exc.response.get("Error", {})
    code = str(error.get("Code", "Unknown"))
    code = code[:1].upper() + code[1:]  # inside a ConverseStream: "throttlingException", the stream's member
    message = str(error.get("Message", "")) or code
    details = {"model_id": model_id, "aws_error": code}
    if code in THROTTLING_CODES:
        return ModelThrottled(f"Bedrock model {model_id!r} is throttled: {message}", details=details)
    if code == NOT_READY_CODE:
        return ModelThrottled(f"Bedrock model {model_id!r} is not ready yet ({code}): {message}", details=details)
    if code == "ModelTimeoutException":
        return ModelTimedOut(f"Bedrock model {model_id!r} timed out ({code}): {message}", details=details)
    if code in REJECTED_CODES:
        return ModelRequestRejected(
            f"Bedrock rejected the request for model {model_id!r} ({code}): {message}", details=details
        )
    return ModelUnavailable(f"Bedrock model {model_id!r} is unavailable ({code}): {message}", details=details)
