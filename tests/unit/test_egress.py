"""Egress rules (issue 31 defect 8): IPv6 forms carrying an IPv4 address and numeric host forms are refused."""

from __future__ import annotations

import ipaddress

import pytest

from mneme.egress import address_problem, host_problem, resolve_public


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


# IANA's IPv4/IPv6 special-purpose registries, multicast and the reserved space: the first and the last address
# of every block (and a few inside), each refused with the block named — the same on every Python version.
REFUSED_BLOCKS = [
    ("0.0.0.0", "this network"),
    ("0.255.255.255", "this network"),
    ("10.255.255.255", "private"),
    ("100.64.0.0", "carrier-grade NAT"),
    ("100.127.255.255", "carrier-grade NAT"),
    ("127.0.0.1", "loopback"),
    ("169.254.169.254", "link-local"),
    ("172.31.255.255", "private"),
    ("192.0.0.0", "IETF protocol assignments"),
    ("192.0.0.9", "IETF protocol assignments"),
    ("192.0.0.170", "IETF protocol assignments"),
    ("192.0.0.192", "IETF protocol assignments"),
    ("192.0.0.255", "IETF protocol assignments"),
    ("192.0.2.1", "documentation"),
    ("192.88.99.1", "6to4 relay anycast"),
    ("192.168.1.1", "private"),
    ("198.18.0.0", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("198.51.100.1", "documentation"),
    ("203.0.113.1", "documentation"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.255", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("100::1", "discard-only"),
    ("100:0:0:1::1", "outside IPv6 global unicast"),
    ("5f00::1", "segment routing"),
    ("fc00::1", "unique local"),
    ("fd00:ec2::254", "unique local"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local"),
    ("feff:ffff::1", "site-local"),
    ("ff02::1", "multicast"),
    ("ff0e::1", "multicast"),
    ("4000::1", "outside IPv6 global unicast"),
    ("c000::1", "outside IPv6 global unicast"),
    ("2001:1::1", "IETF protocol assignments"),
    ("2001:1::2", "IETF protocol assignments"),
    ("2001:1::3", "IETF protocol assignments"),
    ("2001:2::1", "IETF protocol assignments"),
    ("2001:3::1", "IETF protocol assignments"),
    ("2001:4:112::1", "IETF protocol assignments"),
    ("2001:10::1", "IETF protocol assignments"),
    ("2001:20::1", "IETF protocol assignments"),
    ("2001:30::1", "IETF protocol assignments"),
    ("2001:1ff:ffff::1", "IETF protocol assignments"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("3fff:fff::1", "documentation"),
    ("64:ff9b:1::1", "NAT64"),
    ("2002:a00:1::", "6to4"),
    ("2002:c0a8:101::", "6to4"),
    ("2002:6440:1::", "6to4"),
    ("2002:c000:c0::", "6to4"),
    ("2002:e000:1::", "6to4"),
]

# Public neighbours of those blocks (and the globally reachable AS112/AMT blocks): allowed.
PUBLIC_NEIGHBOURS = [
    "1.0.0.1",
    "100.63.255.255",
    "100.128.0.0",
    "192.0.1.1",
    "192.31.196.1",
    "192.52.193.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2001:200::1",
    "2001:4860:4860::8888",
    "2606:4700:4700::1111",
    "2620:4f:8000::1",
    "3ffe::1",
    "3fff:1000::1",
    "2002:808:808::",
]


@pytest.mark.parametrize(("address", "block"), REFUSED_BLOCKS)
def test_every_special_purpose_block_is_refused_by_name(address: str, block: str) -> None:
    problem = address_problem(ipaddress.ip_address(address))
    assert problem is not None and block in problem, problem


@pytest.mark.parametrize("address", PUBLIC_NEIGHBOURS)
def test_a_public_neighbour_of_a_refused_block_passes(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(("address", "block"), [("fec0::1", "site-local"), ("192.0.0.192", "IETF")])
def test_a_name_resolving_into_a_block_python_3_11_thinks_global_is_refused(address: str, block: str) -> None:
    def resolve(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(0, 0, 6, "", (address, port))]

    found, problem = resolve_public("llm.example.com", 443, resolve=resolve)
    assert found is None
    assert problem is not None and problem.startswith(
        f"the host 'llm.example.com' resolves to a non-public address ({address}): {block}"
    )


def test_a_name_resolving_to_a_public_address_answers_it() -> None:
    def resolve(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(0, 0, 6, "", ("2606:4700:4700::1111", port, 0, 0))]

    assert resolve_public("llm.example.com", 443, resolve=resolve) == ("2606:4700:4700::1111", None)
