"""Shared test setup: no real AWS credentials or network, a fixed region."""

from __future__ import annotations

import os

import pytest

from mneme.lazy_packages import install_all

# the run function's init phase makes Powertools' re-exporting packages lazy (mneme.cold_start.preload): every
# test runs against them the same way, so a name they fail to resolve fails here, not first in Lambda
install_all()

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["AWS_ACCESS_KEY_ID"] = "testing"
os.environ["AWS_SECRET_ACCESS_KEY"] = "testing"
os.environ["AWS_SESSION_TOKEN"] = "testing"
os.environ.pop("AWS_PROFILE", None)


@pytest.fixture
def aws_region() -> str:
    return "us-east-1"
