"""Which ``Host`` and ``Origin`` values a hosted server accepts: the grammar of ``KGFEGMCP_HTTP_ALLOWED_HOSTS``
and ``KGFEGMCP_HTTP_ALLOWED_ORIGINS``, and what a well-formed ``Host`` or ``Origin`` header is.

FastMCP's DNS-rebinding guard compares ``Host`` and ``Origin`` with shell-style ``fnmatch``, where ``*``
matches any characters, ``?`` one and ``[…]`` a set: ``*example.org`` would accept ``evilexample.org`` and
``api.*`` would accept ``api.attacker.net``, names anyone can register. So a host pattern is one of

- ``*``: any host;
- an exact name (DNS labels of letters, digits, ``-`` and ``_``; the last label not all digits) or an IP
  address (IPv6 with or without brackets);
- ``*.`` followed by such a name: one or more whole labels left of it (``*.example.org`` accepts
  ``a.example.org`` and ``a.b.example.org``, never ``example.org`` nor ``evilexample.org``).

A port is refused: FastMCP drops the port of both the pattern and the ``Host``, so it would not be compared.
An origin pattern is ``*`` or ``scheme://`` + a host pattern other than ``*`` + an optional ``:port``.

Those patterns alone do not make the match exact: fnmatch's ``*`` in ``*.example.org`` also matches an empty
or malformed prefix (a ``Host`` of ``.example.org`` or ``a b.example.org``). The HTTP wing's guard
(``http_transport/hosts.py``) therefore refuses, wherever a list is configured, a ``Host`` that is not
``name[:port]`` or an ``Origin`` that is not ``scheme://name[:port]``; what FastMCP then matches is whole labels.
Standard library only: the settings import this module, and the command line must not pay for a web framework.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

_LABEL = r"(?!-)[a-z0-9_-]{1,63}(?<!-)"
#: A DNS name whose last label is not all digits (``10.0.0.300`` is neither a name nor an address).
_NAME = re.compile(rf"(?:{_LABEL}\.)*(?=[a-z0-9_-]*[a-z_-]){_LABEL}", re.IGNORECASE | re.ASCII)
_PORT = r"[0-9]{1,5}"
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*", re.IGNORECASE | re.ASCII)
MAX_NAME_CHARS = 253

HOST_PATTERN_FORM = "an exact host name or IP address, `*`, or `*.` followed by a name (whole labels)"
ORIGIN_PATTERN_FORM = "`*` or scheme://host[:port], the host an exact name, IP address or `*.` followed by a name"


def _is_name(text: str) -> bool:
    return len(text) <= MAX_NAME_CHARS and _NAME.fullmatch(text) is not None


def _is_ip(text: str, version: int) -> bool:
    if "%" in text:  # a zone identifier (fe80::1%eth0) is no part of a Host
        return False
    try:
        return ipaddress.ip_address(text).version == version
    except ValueError:
        return False


def _is_address(text: str, *, bare_ipv6: bool) -> bool:
    """Whether ``text`` is an IPv4 address or a bracketed IPv6 one (or a bare IPv6 one, when ``bare_ipv6``)."""
    if text.startswith("[") and text.endswith("]"):
        return _is_ip(text[1:-1], 6)
    return _is_ip(text, 4) or (bare_ipv6 and _is_ip(text, 6))


def _split_port(text: str) -> tuple[str, str | None]:
    """``(host, port)`` of ``host[:port]``; an unbracketed IPv6 address keeps its colons."""
    if text.startswith("["):
        host, bracket, rest = text.partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return text, None
        return host + "]", rest[1:] if rest else None
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, port
    return text, None


def _valid_port(port: str) -> bool:
    return re.fullmatch(_PORT, port) is not None and 1 <= int(port) <= 65535


def _host_pattern_problem(pattern: str) -> str | None:
    if pattern == "*" or _is_name(pattern) or _is_address(pattern, bare_ipv6=True):
        return None
    if pattern.startswith("*.") and _is_name(pattern[2:]):
        return None
    host, port = _split_port(pattern)
    if port is not None and (_is_name(host) or _is_address(host, bare_ipv6=False) or host.startswith("*.")):
        return f"{pattern!r} names a port, which is not compared: give the host alone"
    return f"{pattern!r} is not {HOST_PATTERN_FORM}"


def host_pattern_problems(patterns: Sequence[str]) -> list[str]:
    """Why each pattern that is not in the accepted grammar is refused (empty when all are accepted)."""
    return [problem for pattern in patterns if (problem := _host_pattern_problem(pattern)) is not None]


def _origin_pattern_problem(pattern: str) -> str | None:
    if pattern == "*":
        return None
    scheme, separator, authority = pattern.partition("://")
    if separator and _SCHEME.fullmatch(scheme):
        host, port = _split_port(authority)
        if port is None or _valid_port(port):
            wildcard = host.startswith("*.") and _is_name(host[2:])
            if wildcard or _is_name(host) or _is_address(host, bare_ipv6=False):
                return None
    return f"{pattern!r} is not {ORIGIN_PATTERN_FORM}"


def origin_pattern_problems(patterns: Sequence[str]) -> list[str]:
    """Why each origin pattern that is not in the accepted grammar is refused (empty when all are accepted)."""
    return [problem for pattern in patterns if (problem := _origin_pattern_problem(pattern)) is not None]


def is_host_header(value: str) -> bool:
    """Whether a ``Host`` header is ``name[:port]`` (a DNS name, an IPv4 address or a bracketed IPv6 one)."""
    host, port = _split_port(value)
    if port is not None and not _valid_port(port):
        return False
    return _is_name(host) or _is_address(host, bare_ipv6=False)


def is_origin_header(value: str) -> bool:
    """Whether an ``Origin`` header is a serialised origin, ``scheme://name[:port]``, or ``null`` (opaque)."""
    if value == "null":
        return True
    scheme, separator, authority = value.partition("://")
    return bool(separator) and _SCHEME.fullmatch(scheme) is not None and is_host_header(authority)
