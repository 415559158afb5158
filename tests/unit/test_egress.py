"""Egress rules (issue 31 defect 8): IPv6 forms carrying an IPv4 address and numeric host forms are refused."""

from __future__ import annotations

import ipaddress

import pytest

from mneme.egress import address_problem, host_problem


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("::ffff:127.0.0.1", "IPv6 form of an IPv4"),
        ("::ffff:8.8.8.8", "IPv6 form of an IPv4"),
        ("::127.0.0.1", "IPv6 form of an IPv4"),
        ("64:ff9b::7f00:1", "NAT64"),
        ("64:ff9b:1::a00:1", "NAT64"),
        ("2002:7f00:1::", "6to4"),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo"),
        ("10.0.0.1", "non-public"),
    ],
)
def test_an_address_carrying_a_private_or_any_v4_gateway_target_is_refused(address: str, why: str) -> None:
    problem = address_problem(ipaddress.ip_address(address))
    assert problem is not None and why in problem


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "2002:808:808::"])
def test_a_public_address_passes(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize("host", ["127.1", "2852039166", "0x7f.0.0.1", "0177.0.0.1", "0x7f000001", "1.2.3"])
def test_a_numeric_host_form_is_refused(host: str) -> None:
    assert "numeric host" in (host_problem(host) or "")


@pytest.mark.parametrize("host", ["example.com", "8.8.8.8", "1password.com", "123.example"])
def test_a_name_or_a_canonical_public_address_passes(host: str) -> None:
    assert host_problem(host) is None
