"""Forged cursors: payloads in the server's layout, sealed with its own key or checksummed with the public
catalog fingerprint, at hostile, extreme and random positions, and what each must get back."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
from collections.abc import Iterator

from pydantic import BaseModel

from kgfegmcp.core.cursors import request_fingerprint
from kgfegmcp.mcp.tools import TOOLS

from .cases import INVALID_CURSOR, OK, OK_OR_INVALID_CURSOR, Case, hostile_text
from .rpc import tool_call
from .surface import Surface

#: Tools that accept a cursor, with the request model their fingerprint is computed from (read from the
#: tools' declarations, so a new paged tool is fuzzed too).
CURSOR_MODELS: dict[str, type[BaseModel]] = {
    tool.name: tool.request for tool in TOOLS if "cursor" in tool.request.model_fields
}
#: Offsets beyond anything a catalog holds, and negative ones: a sealed cursor carrying one is refused.
EXTREME_OFFSETS = (2**31 - 1, 2**31, 2**32 + 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**30, 10**300, -1, -(2**63))
#: Positions also forged with the public fingerprint (besides every genuine payload).
PUBLIC_KEY_PROBES = frozenset({"offset 2147483647", "offset total - 1", "offset 0"})
#: No catalog reaches this far (offsets index in-memory sequences); below it, an unknown reach allows a page.
MAX_OFFSET = 2**31 - 1


def forge(surface: Surface, payload: bytes) -> str:
    """A cursor checksummed with the public catalog fingerprint, as anyone who reads the manifests can."""
    checksum = hmac.new(surface.catalog_fingerprint.encode("ascii"), payload, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(payload + checksum).decode("ascii").rstrip("=")


def seal(surface: Surface, payload: bytes) -> str:
    """A cursor sealed with the server's own key: what a replica, or anyone holding the secret, can make."""
    return surface.codec.seal(payload)


def envelope(
    surface: Surface, label: str, position: bytes, *, fingerprint: str | None = None, tool: str | None = None
) -> bytes:
    """The server's payload layout for the target's cursor request, with ``position`` spliced in verbatim."""
    target = surface.cursor_targets[label]
    if fingerprint is None:
        fingerprint = request_fingerprint(CURSOR_MODELS[target.tool].model_validate(target.request))
    name = (tool or target.tool).encode()
    return b'{"p":' + position + b',"r":"' + fingerprint[:32].encode() + b'","t":"' + name + b'","v":1}'


def cursor_case(surface: Surface, label: str, case: str, cursor: str, allowed: frozenset[str] | None) -> Case:
    target = surface.cursor_targets[label]
    request = {**target.request, "cursor": cursor}
    return Case("forged-cursors", f"{label}: {case}", tool_call(target.tool, {"request": request}), allowed)


def hostile_positions(surface: Surface, label: str) -> dict[str, bytes]:
    """Payloads no server-issued cursor has: each must be ``invalid_cursor``, however it is sealed."""
    deep = b"[" * 1400 + b"]" * 1400
    sha = surface.evidence_sha256[:32].encode()
    other_tool = "search_standards" if surface.cursor_targets[label].tool == "list_frameworks" else "list_frameworks"
    return {
        "array nested 1,400 deep": deep,
        "position nested 1,400 deep": envelope(surface, label, deep),
        "offset nested 1,000 deep": envelope(surface, label, b'{"offset":' + b"[" * 1000 + b"]" * 1000 + b"}"),
        "object nested 400 deep": b'{"a":' * 400 + b"1" + b"}" * 400,
        "unbalanced": b"[" * 2900,
        "closing first": b"]" * 1400 + b"[" * 1400,
        "not UTF-8": b"\xff\xfe\xfd\xc0\xaf" * 100,
        "huge integer": envelope(surface, label, b'{"offset":' + b"9" * 2900 + b"}"),
        "NaN": envelope(surface, label, b'{"offset":NaN}'),
        "Infinity": envelope(surface, label, b'{"offset":Infinity}'),
        "float offset": envelope(surface, label, b'{"offset":1.0}'),
        "boolean offset": envelope(surface, label, b'{"offset":true}'),
        "string offset": envelope(surface, label, b'{"offset":"1"}'),
        "null offset": envelope(surface, label, b'{"offset":null}'),
        "offset a list of 200": envelope(surface, label, b'{"offset":[' + b",".join([b"2147483647"] * 200) + b"]}"),
        "offset a nested list": envelope(surface, label, b'{"offset":[[9223372036854775808]],"sha256":"' + sha + b'"}'),
        "offset an object": envelope(surface, label, b'{"offset":{"offset":1}}'),
        "position list": envelope(surface, label, b"[1,2]"),
        "position string": envelope(surface, label, b'"p"'),
        "lone surrogate": envelope(surface, label, b'{"offset":1,"sha256":"\\ud800"}'),
        "wrong tool": envelope(surface, label, b'{"offset":1}', tool=other_tool),
        "wrong request": envelope(surface, label, b'{"offset":1}', fingerprint="0" * 64),
        "truncated": b'{"p":{"offset":',
        "empty object": b"{}",
        "bare string": b'"' + b"x" * 2800 + b'"',
        "control bytes": bytes(range(32)) * 20,
    }


def position(surface: Surface, label: str, offset: int) -> bytes:
    """A position the target's cursors have, at ``offset`` (read_evidence's names the resource version)."""
    if surface.cursor_targets[label].tool == "read_evidence":
        return json.dumps({"offset": offset, "sha256": surface.evidence_sha256[:32]}).encode()
    return json.dumps({"offset": offset}).encode()


def expected(surface: Surface, label: str, offset: int) -> frozenset[str]:
    """What a sealed cursor at ``offset`` must get: a page inside the reach, ``invalid_cursor`` outside."""
    target = surface.cursor_targets[label]
    reach = target.reach if target.reach is not None else MAX_OFFSET
    if not 0 <= offset < reach:
        return INVALID_CURSOR
    if target.tool == "read_evidence" or target.reach is None:
        return OK_OR_INVALID_CURSOR  # a window starts after the first, on a character boundary
    return OK


def extreme_positions(surface: Surface, label: str) -> dict[str, tuple[bytes, frozenset[str]]]:
    """Sealed positions at the edges: extreme offsets, the reach and just past it, the last position."""
    target = surface.cursor_targets[label]
    offsets = {
        f"offset {offset}" if abs(offset) < 10**20 else f"offset ~1e{len(str(abs(offset))) - 1}": offset
        for offset in EXTREME_OFFSETS
    }
    offsets["offset 0"] = 0
    if target.reach is not None:
        offsets |= {
            "offset at the total": target.reach,
            "offset total + 1": target.reach + 1,
            "offset total + 10**6": target.reach + 10**6,
            "offset total - 1": target.reach - 1,
        }
    cases = {
        name: (envelope(surface, label, position(surface, label, offset)), expected(surface, label, offset))
        for name, offset in offsets.items()
    }
    padded = (
        b'{"offset":1,"pad":['
        + b",".join([b"0"] * 600)
        + b'],"sha256":"'
        + surface.evidence_sha256[:32].encode()
        + b'"}'
    )
    cases["offset 1 beside a list of 600"] = (envelope(surface, label, padded), OK_OR_INVALID_CURSOR)
    return cases


def cursor_sweep(surface: Surface) -> Iterator[Case]:
    """The forged-cursors part of the sweep: hostile, extreme and public-key positions, genuine cursors altered."""
    hostile_for: set[str] = set()
    for label, target in sorted(surface.cursor_targets.items()):
        # Sealed with the server's key, so the position itself is what is refused (or served). Payload
        # parsing does not depend on the search mode: hostile payloads once per tool, positions per mode.
        if target.tool not in hostile_for:
            hostile_for.add(target.tool)
            for name, payload in hostile_positions(surface, label).items():
                yield cursor_case(surface, label, f"{name} (sealed)", seal(surface, payload), INVALID_CURSOR)
        for name, (payload, allowed) in extreme_positions(surface, label).items():
            yield cursor_case(surface, label, f"{name} (sealed)", seal(surface, payload), allowed)
            if name in PUBLIC_KEY_PROBES:  # the checksum alone refuses these: a few suffice
                yield cursor_case(surface, label, f"{name} (public key)", forge(surface, payload), INVALID_CURSOR)
        if target.genuine:
            yield cursor_case(surface, label, "genuine", target.genuine, OK)
            payload = base64.urlsafe_b64decode(target.genuine + "=" * (-len(target.genuine) % 4))[:-16]
            yield cursor_case(surface, label, "genuine payload (public key)", forge(surface, payload), INVALID_CURSOR)
            for variant in (target.genuine[:-1], target.genuine[::-1], target.genuine + "A", target.genuine[:10]):
                yield cursor_case(surface, label, "altered genuine", variant, INVALID_CURSOR)


def random_offset(rng: random.Random, reach: int | None) -> int:
    """Small, near the reach, anywhere inside it, powers of two and ten up to 2**64, or negative."""
    near = [] if reach is None else [reach - 1, reach, reach + 1, rng.randrange(max(1, reach))]
    return int(
        rng.choice(
            [
                rng.randrange(0, 30),
                *near,
                2 ** rng.randrange(20, 65),
                2 ** rng.randrange(20, 65) - 1,
                10 ** rng.randrange(1, 40),
                -rng.randrange(1, 2**63),
            ]
        )
    )


def random_cursor(surface: Surface, rng: random.Random) -> Case:
    """One seeded forged-cursors case: a sealed or public-key position, random bytes, or an altered cursor."""
    label = rng.choice(sorted(surface.cursor_targets))
    target = surface.cursor_targets[label]
    choice = rng.randrange(5)
    if choice in (0, 1):
        offset = random_offset(rng, target.reach)
        payload = envelope(surface, label, position(surface, label, offset))
        if choice == 0:
            return cursor_case(
                surface, label, f"offset {offset} (sealed)", seal(surface, payload), expected(surface, label, offset)
            )
        return cursor_case(surface, label, f"offset {offset} (public key)", forge(surface, payload), INVALID_CURSOR)
    if choice == 2:
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
        sealed = rng.random() < 0.5
        cursor = seal(surface, payload) if sealed else forge(surface, payload)
        return cursor_case(
            surface, label, f"random bytes ({'sealed' if sealed else 'public key'})", cursor, INVALID_CURSOR
        )
    if choice == 3:
        junk = rng.choice(
            [
                {"offset": [rng.randrange(2**63) for _ in range(rng.randrange(1, 150))]},
                {"offset": {"offset": rng.randrange(100)}},
                {"offset": str(rng.randrange(100))},
                {"offset": rng.random() * 10 ** rng.randrange(1, 300)},
                {"offset": 1, "sha256": hostile_text(rng, rng.randrange(1, 64)), "x": [None] * rng.randrange(1, 300)},
                {},
            ]
        )
        payload = envelope(surface, label, json.dumps(junk).encode())
        return cursor_case(surface, label, "junk position (sealed)", seal(surface, payload), OK_OR_INVALID_CURSOR)
    genuine = target.genuine or seal(surface, envelope(surface, label, position(surface, label, 1)))
    index = rng.randrange(len(genuine))
    flipped = genuine[:index] + rng.choice("AQgw_-09") + genuine[index + 1 :]
    return cursor_case(surface, label, "flipped character", flipped, OK_OR_INVALID_CURSOR)
