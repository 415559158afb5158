"""Where mneme may send a request when only public servers may be called (pure rules, issue 31 defect 8).

The rule is an explicit table (:data:`REFUSED_V4`, :data:`REFUSED_V6`), never Python's ``is_global`` or
``is_private``: those lists differ between Python versions (3.11 lets ``fec0::/10``, ``192.0.0.0/24``'s
``192.0.0.192`` or ``3fff::/20`` through, 3.13 lets ``2001:1::1`` or ``2001:3::/32`` through), and the rule
must be the same on the local runtime and on Lambda's. It follows IANA's IPv4 and IPv6 special-purpose
address registries, refusing every block there a public model or MCP server cannot live in: an IPv4 address
is refused when it is in :data:`REFUSED_V4`; an IPv6 address is refused unless it is global unicast
(``2000::/3``, where IANA allocates public addresses) and outside :data:`REFUSED_V6`. An IPv6 form that carries
an IPv4 address a gateway would reach is refused too — IPv4-mapped (``::ffff:a.b.c.d``), IPv4-compatible
(``::a.b.c.d``), NAT64 (``64:ff9b::/96``, ``64:ff9b:1::/48``), 6to4 (``2002::/16``) with a refused IPv4
inside, Teredo. A host written as a non-canonical number (``127.1``, ``2852039166``, ``0x7f.0.0.1``,
``0177.0.0.1``) is refused as such: resolvers read those as IPv4 addresses, so they would slip past a check of
the text.

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
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")


def _table(*rows: tuple[str, str]) -> tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...]:
    return tuple((ipaddress.ip_network(block), name) for block, name in rows)


#: IPv4 blocks no request may go to (IANA special-purpose registry; multicast; the reserved 240.0.0.0/4).
REFUSED_V4 = _table(
    ("0.0.0.0/8", "this network"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (the instance metadata service)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved (and the limited broadcast 255.255.255.255)"),
)

#: IPv6 blocks no request may go to: named ones outside ``2000::/3`` (all of which are refused), then the
#: special-purpose blocks inside it. 6to4 (``2002::/16``) is judged by the IPv4 address it carries.
REFUSED_V6 = _table(
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("100::/64", "discard-only"),
    ("5f00::/16", "segment routing (SRv6) identifiers"),
    ("fc00::/7", "unique local (private)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local (deprecated)"),
    ("ff00::/8", "multicast"),
    ("2001::/23", "IETF protocol assignments"),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
)


def _refused_block(address: IpAddress) -> str | None:
    table = REFUSED_V4 if isinstance(address, ipaddress.IPv4Address) else REFUSED_V6
    for network, name in table:
        if address in network:
            return f"non-public address ({address}): {name}, {network}"
    if isinstance(address, ipaddress.IPv6Address) and address not in _GLOBAL_UNICAST:
        return f"non-public address ({address}): outside IPv6 global unicast, {_GLOBAL_UNICAST}"
    return None


_NUMERIC = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$", re.IGNORECASE)

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _v4_problem(address: ipaddress.IPv4Address) -> str | None:
    return _refused_block(address)


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
    return _v6_problem(address) or _refused_block(address)


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
