"""The secrets of MCP servers' auth (issue 20): Secrets Manager (moto) on AWS, environment variables locally.
An agent only ever reads a secret of its owner's folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mneme.adapters.aws.secrets_manager import TTL_SECONDS, SecretsManagerStore
from mneme.errors import SecretUnavailable
from mneme.models.common import GLOBAL_OWNER
from mneme_local.secrets import EnvironmentSecrets

PREFIX = "mneme-test/mcp/"


class CountingClient:
    def __init__(self, client: Any) -> None:
        self.client, self.calls = client, 0

    def get_secret_value(self, **kwargs: Any) -> Any:
        self.calls += 1
        return self.client.get_secret_value(**kwargs)


@pytest.fixture
def manager() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        for name, value in [
            ("mneme-test/mcp/alice/weather", "alice-token"),
            ("mneme-test/mcp/bob/weather", "bob-token"),
            ("mneme-test/mcp/__global__/weather", "global-token"),
            ("elsewhere/db-password", "hunter2"),
        ]:
            client.create_secret(Name=name, SecretString=value)
        yield client


def test_an_owner_reads_a_secret_of_their_folder_by_name_or_arn(manager: Any) -> None:
    store = SecretsManagerStore(manager, PREFIX)
    arn = manager.describe_secret(SecretId="mneme-test/mcp/alice/weather")["ARN"]
    assert store.get_secret("mneme-test/mcp/alice/weather", owner="alice") == "alice-token"
    assert store.get_secret(arn, owner="alice") == "alice-token"


def test_a_global_agent_reads_the_global_folder(manager: Any) -> None:
    store = SecretsManagerStore(manager, PREFIX)
    assert store.get_secret("mneme-test/mcp/__global__/weather", owner=GLOBAL_OWNER) == "global-token"


@pytest.mark.parametrize(
    ("ref", "owner"),
    [
        ("mneme-test/mcp/bob/weather", "alice"),
        ("elsewhere/db-password", "alice"),
        ("mneme-test/mcp/__global__/weather", "alice"),
        ("mneme-test/mcp/alice/weather", "ali"),
        ("mneme-test/mcp/alice/weather", "alice/../bob"),
    ],
    ids=["another-users", "outside-the-prefix", "global-for-a-user", "prefix-of-a-name", "owner-with-a-slash"],
)
def test_a_secret_outside_the_owners_folder_is_refused_without_reading_it(manager: Any, ref: str, owner: str) -> None:
    client = CountingClient(manager)
    with pytest.raises(SecretUnavailable):
        SecretsManagerStore(client, PREFIX).get_secret(ref, owner=owner)
    assert client.calls == 0


def test_a_missing_secret_is_unavailable(manager: Any) -> None:
    with pytest.raises(SecretUnavailable, match="cannot be read"):
        SecretsManagerStore(manager, PREFIX).get_secret("mneme-test/mcp/alice/nope", owner="alice")


def test_a_secret_is_read_once_per_ttl(manager: Any) -> None:
    now = [100.0]
    client = CountingClient(manager)
    store = SecretsManagerStore(client, PREFIX, clock=lambda: now[0])
    store.get_secret("mneme-test/mcp/alice/weather", owner="alice")
    now[0] += TTL_SECONDS - 1
    store.get_secret("mneme-test/mcp/alice/weather", owner="alice")
    reads_within_ttl = client.calls
    now[0] += 2
    store.get_secret("mneme-test/mcp/alice/weather", owner="alice")
    assert (reads_within_ttl, client.calls) == (1, 2)


def test_locally_a_secret_is_a_mneme_mcp_secret_variable() -> None:
    secrets = EnvironmentSecrets({"MNEME_MCP_SECRET_WEATHER": "token"})
    assert secrets.get_secret("MNEME_MCP_SECRET_WEATHER", owner="alice") == "token"


@pytest.mark.parametrize(
    "ref", ["AWS_SECRET_ACCESS_KEY", "MNEME_MCP_SECRET_", "mneme_mcp_secret_x", "MNEME_MCP_SECRET_UNSET"]
)
def test_locally_no_other_variable_is_read(ref: str) -> None:
    secrets = EnvironmentSecrets({"AWS_SECRET_ACCESS_KEY": "aws", "mneme_mcp_secret_x": "x"})
    with pytest.raises(SecretUnavailable):
        secrets.get_secret(ref, owner="alice")


class RefusingClient:
    """Secrets Manager refusing the role, as AWS words it (the caller's role ARN and account id in the text)."""

    def get_secret_value(self, **kwargs: Any) -> Any:
        from botocore.exceptions import ClientError

        message = (
            "User: arn:aws:sts::123456789012:assumed-role/mneme-prod-RunFunctionRole-1A2B3C/mneme-prod-RunFunction "
            "is not authorized to perform: secretsmanager:GetSecretValue on resource: mneme-prod/mcp/alice/weather"
        )
        raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": message}}, "GetSecretValue")


def test_a_refused_read_names_the_error_code_never_the_roles_arn_or_account() -> None:
    # the reason is a warning event of the run: any user of a global agent reads it
    with pytest.raises(SecretUnavailable) as failure:
        SecretsManagerStore(RefusingClient(), "mneme-prod/mcp/").get_secret(
            "mneme-prod/mcp/alice/weather", owner="alice"
        )
    message = failure.value.message
    assert "AccessDeniedException" in message and "mneme-prod/mcp/alice/weather" in message
    assert "123456789012" not in message and "RunFunctionRole" not in message
