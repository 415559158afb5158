"""Where mneme may send a request when only public servers may be called (pure rules, issue 31 defect 8).

An address is refused unless it is global and not multicast, and also when it is an IPv6 form that carries an
IPv4 address a gateway would reach — IPv4-mapped (``::ffff:a.b.c.d``), IPv4-compatible (``::a.b.c.d``), NAT64
(``64:ff9b::/96``, ``64:ff9b:1::/48``), 6to4 (``2002::/16``) with a non-global IPv4 inside, Teredo. A host
written as a non-canonical number (``127.1``, ``2852039166``, ``0x7f.0.0.1``, ``0177.0.0.1``) is refused as
such: resolvers read those as IPv4 addresses, so they would slip past a check of the text.

:func:`resolve_public` resolves a name once and checks every address: a caller connects to the address it
answers (never to a second resolution of the name, which a rebinding DNS server could answer otherwise).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPATIBLE = ipaddress.ip_network("::/96")
_NUMERIC = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$", re.IGNORECASE)

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _v4_problem(address: ipaddress.IPv4Address) -> str | None:
    if not address.is_global or address.is_multicast:
        return f"non-public address ({address})"
    return None


def _v6_problem(address: ipaddress.IPv6Address) -> str | None:
    if address.ipv4_mapped is not None or (address in _COMPATIBLE and int(address) > 1):  # not ::, ::1
        return f"an IPv6 form of an IPv4 address ({address})"
    if any(address in network for network in _NAT64):
        return f"a NAT64 address ({address})"
    if address.teredo is not None:
        return f"a Teredo address ({address})"
    if address.sixtofour is not None and _v4_problem(address.sixtofour):
        return f"a 6to4 address of a non-public IPv4 address ({address})"
    return None


def address_problem(address: IpAddress) -> str | None:
    """Why a request may not go to ``address`` (None when it may)."""
    if isinstance(address, ipaddress.IPv4Address):
        return _v4_problem(address)
    problem = _v6_problem(address)
    if problem is None and (not address.is_global or address.is_multicast):
        problem = f"non-public address ({address})"
    return problem


def numeric_form_problem(host: str) -> str | None:
    """A host written as a number that is no canonical IPv4 address: refused whatever it resolves to."""
    host = host.lower()
    if _NUMERIC.match(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"a numeric host that is no canonical IPv4 address ({host})"
    return None


def host_problem(host: str) -> str | None:
    """Why the host of a URL may not be called, from its text alone (names are checked once resolved)."""
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return "localhost"
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return numeric_form_problem(host)
    return address_problem(address)


def public_https_problem(url: str) -> str | None:
    """Why ``url`` may not be called where only public https servers may, from its text (the scheme, an IP
    literal, ``localhost``, a numeric host); what its name resolves to is checked when it is called."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        return f"{parts.scheme or 'no scheme'}:// is not https"
    return host_problem(parts.hostname or "")


def resolve_public(
    host: str, port: int, *, resolve: Callable[..., list[Any]] | None = None
) -> tuple[str, None] | tuple[None, str]:
    """``(address, None)``: the first address ``host`` resolves to, all of them allowed; else ``(None, why)``."""
    problem = numeric_form_problem(host)
    if problem:
        return None, f"the host {host!r} is refused: {problem}"
    try:
        infos = (resolve or socket.getaddrinfo)(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        return None, f"the host {host!r} cannot be resolved: {exc}"
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    for address in addresses:
        problem = address_problem(address)
        if problem:
            return None, f"the host {host!r} resolves to a {problem}"
    if not addresses:
        return None, f"the host {host!r} resolves to no address"
    return str(addresses[0]), None
