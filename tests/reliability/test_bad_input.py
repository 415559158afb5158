"""Bad input (issue 7 §2): schemathesis against ``/v1/openapi.json`` of the local server, every route,
authenticated — no 5xx, no response that violates the documented schema.

The explicit bad-input cases live in the functional tier (see docs/reliability.md): malformed JSON, wrong
types, 413, unknown agent 404, missing / expired / wrongly signed token 401, a ``user_id`` in the body.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from mneme_local.token import issue, signing_key
from tests.functional.local.support import LocalServer, wait_until
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER

pytestmark = pytest.mark.slow
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = {GenerationMode.POSITIVE: 25, GenerationMode.NEGATIVE: 15}


def _not_utf8(body: Any) -> bool:
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    if not isinstance(body, bytes):
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _describe(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None) or [exc]
    return "; ".join(f"{type(e).__name__}: {str(e)[:300]}" for e in inner) + f" ({str(exc)[:900]})"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    local = LocalServer(LEDGER.data_dir("bad input server", Path(tmp_path_factory.mktemp("schemathesis")))).start()
    try:
        yield local
    finally:
        local.stop()


def test_every_route_answers_fuzzed_input_without_5xx_or_schema_violations(
    server: LocalServer, figures: Figures
) -> None:
    # Given alice's token and the API document the server serves
    headers = {"Authorization": f"Bearer {issue(server.data_dir, 'alice')}"}
    server.request("PUT", "/v1/agents/echo", {"label": "Echo"}, token=headers["Authorization"][7:])
    schema = schemathesis.openapi.from_url(f"{server.base}/v1/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    failures: list[str] = []
    unfinished: list[str] = []
    statuses: dict[int, int] = {}

    # When every operation gets generated valid and invalid requests
    def fuzzer(operation: Any, mode: GenerationMode) -> Any:
        @settings(max_examples=EXAMPLES[mode], deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=operation.as_strategy(generation_mode=mode))
        def fuzz(case: Any) -> None:
            figures.add("schemathesis cases")
            try:
                response = case.call(base_url=server.base, headers=headers)
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                if _not_utf8(response.request.body):
                    figures.add("schemathesis non-UTF-8 bodies")
                case.validate_response(response, checks=CHECKS, headers=headers)
            except (Exception, BaseExceptionGroup) as exc:
                failures.append(f"{operation.label} [{mode.value}]: {_describe(exc)}")
                raise

        return fuzz

    for operation in operations:
        for mode in EXAMPLES:
            try:
                fuzzer(operation, mode)()
            except (Exception, BaseExceptionGroup) as exc:  # a failure was recorded above; anything else:
                if not failures or operation.label not in failures[-1]:
                    unfinished.append(f"{operation.label} [{mode.value}]: {_describe(exc)[:300]}")

    # Then no answer was a 5xx or broke the documented schema
    figures.add("schemathesis failures", len(failures))
    figures.add("schemathesis operations", len(operations))
    figures.set("schemathesis statuses", ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items())))
    figures.set("schemathesis generation stopped early", "; ".join(unfinished) or "none")
    assert not failures, "\n".join(failures[:10])
    assert figures.get("schemathesis cases") >= 1000


def test_a_body_that_is_not_utf8_is_a_400() -> None:
    import base64

    from mneme.adapters.models.offline import OfflineModel
    from tests.functional.api.conftest import Api, http_event
    from tests.support.deps import make_world

    # Given a request whose JSON body holds bytes that are not UTF-8 (API Gateway passes it base64-encoded)
    api = Api(make_world(OfflineModel()))
    event = http_event("PUT", "/v1/me/settings", None)
    event |= {"body": base64.b64encode(b'{"name": "\xff\xfe"}').decode(), "isBase64Encoded": True}
    # When it reaches the runtime
    response = api.runtime.handle(event)
    # Then it is refused as invalid input, not a 500
    assert response["statusCode"] == 400, response


def test_the_hostile_corpus_gets_no_5xx(server: LocalServer, figures: Figures) -> None:
    from tests.reliability.corpus import cases, send

    # Given the echo agent (made by the schemathesis test) and the server's development key
    server.request("PUT", "/v1/agents/echo", {"label": "Echo"}, token=issue(server.data_dir, "alice"))
    key = signing_key(server.data_dir)
    statuses: dict[int, int] = {}
    server_errors: list[str] = []
    # When every case of the corpus is sent as raw bytes
    for case in cases():
        status = send(server.port, key, case)
        statuses[status] = statuses.get(status, 0) + 1
        if status >= 500 or status == 0:
            server_errors.append(f"{case.name}: {status}")
        figures.add("hostile corpus cases")
    # Then none was answered with a 5xx (or not answered at all), and the server still serves
    figures.set("hostile corpus statuses", ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items())))
    assert server_errors == []
    assert server.request("GET", "/v1/health").status == 200


def test_every_run_the_fuzzing_left_is_final_or_waiting_for_a_person(server: LocalServer, figures: Figures) -> None:
    from mneme.adapters.dynamo.run_store import ItemRunStore
    from mneme_local.sqlite_items import open_local_tables

    # When the runs of the fuzzed server are listed (state machine steps may still be finishing a few)
    main, audit = open_local_tables(server.data_dir)
    try:
        runs = ItemRunStore(main)
        pending = wait_until(lambda: [r for r in runs.list_unfinished() if r.status.value != "waiting_approval"] == [])
        left = [f"{r.run_id} {r.status.value}" for r in runs.list_unfinished() if r.status.value != "waiting_approval"]
    finally:
        main.close()
        audit.close()
    # Then every run is final, or legitimately waits for a person's approval
    figures.set("fuzzed server runs left unfinished", str(len(left)))
    assert pending and left == []
