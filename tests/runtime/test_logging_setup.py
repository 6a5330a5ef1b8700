"""The log format setting and the pieces of the one handler: JSON lines, one-line bounded messages, lowered chatter."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from kgfegmcp.core.config import load_settings
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.logging_setup import (
    FIELDS_ATTRIBUTE,
    MAX_RECORD_CHARS,
    ChatterFilter,
    JsonFormatter,
    OneLineFilter,
    formatter,
)


def record(message: str, level: int = logging.INFO, name: str = "kgfegmcp.test", **extra: object) -> logging.LogRecord:
    return logging.makeLogRecord(
        {"name": name, "msg": message, "levelno": level, "levelname": logging.getLevelName(level), **extra}
    )


def test_log_format_defaults_to_text_and_accepts_json(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().log_format == "text"
    monkeypatch.setenv("KGFEGMCP_LOG_FORMAT", "json")
    assert load_settings().log_format == "json"


def test_an_unknown_log_format_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGFEGMCP_LOG_FORMAT", "xml")
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert caught.value.public_message.startswith("configuration_error: ")
    assert "KGFEGMCP_LOG_FORMAT" in caught.value.public_message


def test_json_lines_carry_the_record_fields_and_the_traceback_on_one_line() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        failure = record("incident abc in tool x", logging.ERROR, exc_info=sys.exc_info())
    line = JsonFormatter().format(failure)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "kgfegmcp.test"
    assert entry["message"] == "incident abc in tool x" and "RuntimeError: boom" in entry["exception"]
    assert entry["time"].endswith("+00:00")
    fields = {"method": "tools/call", "outcome": "ok", "duration_ms": 1.5}
    request = json.loads(formatter("json").format(record("method=tools/call", **{FIELDS_ATTRIBUTE: fields})))
    assert {key: request[key] for key in fields} == fields


def test_text_keeps_the_historic_format() -> None:
    line = formatter("text").format(record("catalog ready"))
    assert line.endswith(" INFO kgfegmcp.test: catalog ready")


def test_every_message_is_one_bounded_line() -> None:
    hostile = record("Handler called: call_tool %s", args=("x\n" * 500_000,))
    assert OneLineFilter().filter(hostile)
    message = hostile.getMessage()
    assert "\n" not in message and len(message) <= MAX_RECORD_CHARS + 40
    assert message.endswith(f"… ({len('Handler called: call_tool ') + 1_000_000} characters)")
    plain = record("serving %d packages", args=(5,))
    assert OneLineFilter().filter(plain) and plain.args == (5,), "a plain record is left as it was"


def test_chatter_is_lowered_to_debug_and_nothing_else() -> None:
    chatter = ChatterFilter("Terminating session: ")
    noise = record("Terminating session: None", name="mcp.server.streamable_http")
    assert chatter.filter(noise) and noise.levelno == logging.DEBUG and noise.levelname == "DEBUG"
    other = record("Stateless session crashed", logging.ERROR, name="mcp.server.streamable_http")
    assert chatter.filter(other) and other.levelno == logging.ERROR
