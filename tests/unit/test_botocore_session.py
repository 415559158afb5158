"""The AWS clients' botocore session (mneme/adapters/aws/botocore_session.py): its loader answers as botocore's does,
without listing every service's directory to load one service's model."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore
import pytest
from botocore.exceptions import UnknownServiceError
from botocore.loaders import JSONFileLoader, Loader, create_loader

from mneme.adapters.aws.botocore_session import DictJSONFileLoader, ServiceModelLoader, aws_session

DATA = Path(botocore.__file__).parent / "data"
#: every service a mneme client is made for (composition.py)
SERVICES = [
    "dynamodb", "bedrock-runtime", "sqs", "stepfunctions", "lambda", "secretsmanager", "s3",
    "apigatewaymanagementapi",
]  # fmt: skip
TYPES = ["service-2", "endpoint-rule-set-1", "paginators-1", "waiters-2"]


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Every directory ``os.listdir`` lists while the test runs."""
    seen: list[Path] = []
    real = os.listdir

    def listdir(path: Any = ".") -> list[str]:
        seen.append(Path(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", listdir)
    yield seen


def _answer(loader: Loader, *args: Any) -> Any:
    """The model as JSON text (so that keys' order counts), or the error raised."""
    try:
        return json.dumps(loader.load_service_model(*args))
    except Exception as error:  # the error is the answer compared
        return type(error), str(error)


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("service", SERVICES)
def test_a_model_is_the_one_botocore_loads(service: str, type_name: str) -> None:
    assert _answer(ServiceModelLoader(), service, type_name) == _answer(Loader(), service, type_name)


def test_a_model_with_sdk_extras_has_them_applied() -> None:
    # s3's service-2.sdk-extras.json changes its model (the comparisons above hold with the extras applied)
    assert any((DATA / "s3").glob("*/service-2.sdk-extras.json"))
    plain = Loader(include_default_extras=False).load_service_model("s3", "service-2")
    assert ServiceModelLoader().load_service_model("s3", "service-2") != plain


def test_an_api_version_asked_is_the_one_loaded() -> None:
    older = ServiceModelLoader().load_service_model("dynamodb", "endpoint-rule-set-1", "2011-12-05")
    assert older == Loader().load_service_model("dynamodb", "endpoint-rule-set-1", "2011-12-05")
    assert older != ServiceModelLoader().load_service_model("dynamodb", "endpoint-rule-set-1")


@pytest.mark.parametrize("name", ["endpoints", "partitions", "_retry", "sdk-default-configuration"])
def test_the_data_every_client_loads_is_botocores_in_plain_dicts(name: str) -> None:
    data = ServiceModelLoader().load_data(name)
    assert json.dumps(data) == json.dumps(Loader().load_data(name))
    assert type(data) is dict
    assert type(Loader().load_data(name)) is not dict  # botocore's own: OrderedDict


def test_a_file_in_neither_form_is_left_to_botocores_file_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    # a botocore that reads its data in another form still finds it; a file read here never reaches it
    asked: list[str] = []

    def botocores(self: Any, file_path: str) -> Any:
        asked.append(file_path)
        return {"from": "botocore"}

    monkeypatch.setattr(JSONFileLoader, "load_file", botocores)
    loader = DictJSONFileLoader()
    assert loader.load_file(str(DATA / "no-such-file")) == {"from": "botocore"}
    assert loader.load_file(str(DATA / "partitions"))["partitions"]
    assert asked == [str(DATA / "no-such-file")]


@pytest.mark.parametrize("step", ["_find_extras", "_extras_processor"])
def test_a_botocore_without_the_steps_reused_gets_its_own_method(step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the Lambda runtime brings its own botocore: one whose loader lacks a private step the lookup reuses
    asked: list[tuple[Any, ...]] = []

    def botocores(self: Any, *args: Any) -> Any:
        asked.append(args)
        return {"from": "botocore"}

    monkeypatch.setattr(Loader, "load_service_model", botocores)
    loader = ServiceModelLoader()
    if step == "_find_extras":
        monkeypatch.delattr(Loader, step)
    else:
        delattr(loader, step)
    assert loader.load_service_model("dynamodb", "service-2") == {"from": "botocore"}
    assert asked == [("dynamodb", "service-2", None)]


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.body


def _exchange(session: Any) -> tuple[list[tuple[str, bytes]], Any]:
    """What a DynamoDB client of ``session`` sends for two calls, and what it makes of a canned answer."""
    from botocore.awsrequest import AWSResponse, HTTPHeaders

    sent: list[tuple[str, bytes]] = []
    answer = b'{"Items": [{"PK": {"S": "u"}, "v": {"M": {"n": {"N": "1"}, "l": {"L": [{"BOOL": true}]}}}}], "Count": 1}'

    def send(request: Any, **_: Any) -> Any:
        sent.append((request.headers["X-Amz-Target"].decode(), request.body))
        body = answer if b"KeyConditionExpression" in request.body else b"{}"
        return AWSResponse(request.url, 200, HTTPHeaders(), _Raw(body))

    client = session.create_client("dynamodb", region_name="us-east-1")
    client.meta.events.register("before-send.dynamodb", send)
    item = {"PK": {"S": "u"}, "SK": {"S": "s"}, "v": {"M": {"b": {"B": b"x"}, "l": {"L": [{"N": "2"}]}}}}
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "t", "Item": item, "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Update": {"TableName": "t", "Key": {"PK": {"S": "u"}}, "UpdateExpression": "ADD c :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        ],
        ClientRequestToken="token-1",
    )  # fmt: skip
    answered = client.query(
        TableName="t", KeyConditionExpression="PK = :u", ExpressionAttributeValues={":u": {"S": "u"}}
    )
    answered.pop("ResponseMetadata")
    return sent, answered


def test_a_client_sends_and_reads_what_botocores_own_does(monkeypatch: pytest.MonkeyPatch) -> None:
    import botocore.session

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    ours, theirs = _exchange(aws_session()), _exchange(botocore.session.Session())
    assert ours == theirs
    assert [target for target, _ in ours[0]] == ["DynamoDB_20120810.TransactWriteItems", "DynamoDB_20120810.Query"]
    assert ours[1]["Items"][0]["v"]["M"]["l"] == {"L": [{"BOOL": True}]}


@pytest.mark.parametrize(
    "service",
    ["no-such-service", "", ".", "..", "../data/dynamodb", "dynamodb/2012-08-10", str(DATA / "dynamodb")],
)
def test_an_unknown_service_gets_botocores_refusal(service: str) -> None:
    answer = _answer(ServiceModelLoader(), service, "service-2")
    assert answer == _answer(Loader(), service, "service-2")
    assert answer[0] is UnknownServiceError


def test_a_type_the_service_lacks_gets_botocores_refusal() -> None:
    # dynamodb has a directory, but no version of it has a resources-1 model
    answer = _answer(ServiceModelLoader(), "dynamodb", "resources-1")
    assert answer == _answer(Loader(), "dynamodb", "resources-1")
    assert answer[0] is UnknownServiceError


def test_loading_a_model_lists_only_that_services_directories(listed: list[Path]) -> None:
    ServiceModelLoader().load_service_model("dynamodb", "service-2")
    ServiceModelLoader().load_service_model("dynamodb", "endpoint-rule-set-1")
    assert listed
    assert all(path.is_relative_to(DATA / "dynamodb") for path in listed if path.is_relative_to(DATA))


def test_botocores_loader_lists_every_service(listed: list[Path]) -> None:
    # the work the loader avoids, counted the same way: the data directory itself and each service's
    Loader().load_service_model("dynamodb", "service-2")
    assert DATA in listed
    assert len(listed) > 300


def test_the_session_loads_from_botocores_search_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNEME_TEST_MODELS", str(tmp_path))
    monkeypatch.setenv("AWS_DATA_PATH", os.pathsep.join(["$MNEME_TEST_MODELS/models", "~/more", ""]))
    loader = aws_session().get_component("data_loader")
    assert isinstance(loader, ServiceModelLoader)
    assert loader.search_paths == create_loader(os.environ["AWS_DATA_PATH"]).search_paths
    assert loader.search_paths[0] == str(tmp_path / "models")


def test_a_model_on_the_data_path_is_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a customer model (AWS_DATA_PATH) for a service botocore does not ship: found by both loaders
    version = tmp_path / "mneme-test" / "2026-01-01"
    version.mkdir(parents=True)
    (version / "service-2.json").write_text('{"metadata": {"serviceId": "mneme test"}}')
    monkeypatch.setenv("AWS_DATA_PATH", str(tmp_path))
    loader = aws_session().get_component("data_loader")
    assert loader.load_service_model("mneme-test", "service-2") == {"metadata": {"serviceId": "mneme test"}}


@pytest.mark.parametrize("root", ["build_aws", "build_writer"])
def test_the_composition_roots_create_clients_without_listing_every_service(
    root: str, monkeypatch: pytest.MonkeyPatch, listed: list[Path]
) -> None:
    from mneme import composition
    from mneme.settings import Settings

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    env = {"MNEME_TABLE": "main", "MNEME_AUDIT_TABLE": "audit", "AWS_REGION": "us-east-1"}
    env |= {"MNEME_OPENSEARCH_ENDPOINT": "https://search.example.com"}
    getattr(composition, root)(Settings.from_env(env))
    assert any(path.is_relative_to(DATA / "dynamodb") for path in listed)  # a DynamoDB client was created
    assert DATA not in listed
