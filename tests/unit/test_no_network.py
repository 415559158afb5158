"""The unit tier's guard (tests/unit/conftest.py) holds: no socket, no name resolution, no HTTP client call."""

from __future__ import annotations

import socket

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import HTTPClientError
from pytest_socket import SocketBlockedError

pytestmark = pytest.mark.filterwarnings("ignore:A test tried to use socket:UserWarning")


def test_an_internet_socket_cannot_be_opened() -> None:
    with pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


def test_a_unix_socket_cannot_be_opened_either() -> None:
    with pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)


def test_names_cannot_be_resolved() -> None:
    with pytest.raises(SocketBlockedError):
        socket.getaddrinfo("localhost", 443)


def test_an_aws_client_cannot_reach_an_endpoint() -> None:
    # Given a real boto3 client pointed at a local port (nothing may listen there)
    once = Config(retries={"max_attempts": 1, "mode": "standard"})
    client = boto3.client("sqs", region_name="us-east-1", endpoint_url="http://127.0.0.1:18499", config=once)
    # When it sends a request / Then the guard stops it before any connection is made
    with pytest.raises(HTTPClientError, match="A test tried to use socket"):
        client.list_queues()
