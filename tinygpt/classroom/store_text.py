"""Text from outside on its way into the class store, and store failures on their way out.

Every text a student or a URL gives (a nickname, an answer, a question's words, a lesson's query)
passes :func:`clean_text` before it reaches the database: PostgreSQL refuses a NUL character and
neither database can encode a lone surrogate, so one such text would otherwise fail the write.
:func:`public_reason` turns a database's error message into what a person may read (no host,
port, address, path or token); :func:`log_failure` writes the whole story to the server's log.
"""

from __future__ import annotations

import json
import logging
import re

#: The server's log of store failures (the class code, never a key or a student's token).
LOG = logging.getLogger("tinygpt.classroom.store")

# C0 control characters but tab, newline and carriage return; NUL is one of them.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SECRETS = re.compile(r"\b[0-9a-f]{16}\b|[A-Za-z0-9_-]{24,}")
_PLACES = (
    (re.compile(r'"[^"]*"'), '"…"'),  # a quoted host or file
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b|\[[0-9a-fA-F:]+\]"), "…"),  # IPv4, [IPv6]
    (re.compile(r"\bport \d+", re.IGNORECASE), "port …"),
    (re.compile(r"\b[\w.-]+:\d{2,5}\b"), "…"),  # host:port
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w .~-]+){2,}"), "…"),  # a path
    (re.compile(r"@[\w.-]+"), "@…"),  # user@host
)


def clean_text(raw: object, limit: int | None = None) -> str:
    """``raw`` as the store keeps it: a lone surrogate becomes U+FFFD (a pair written as two
    halves becomes its character), NUL and the other C0 controls but tab, newline and return are
    dropped, and at most ``limit`` characters are kept (None: all). Idempotent."""
    text = raw if isinstance(raw, str) else str(raw)
    if not text.isascii():
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = _CONTROLS.sub("", text)
    return text if limit is None else text[:limit]


def clean_json(value: object) -> str:
    """``value`` (JSON-serialisable) as JSON text the store can keep: :func:`clean_text` applied to
    every string in it (keys too), so reading it back gives clean text."""
    return json.dumps(_cleaned(value), ensure_ascii=False, default=str)


def _cleaned(value: object) -> object:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): _cleaned(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(v) for v in value]
    return value


def public_reason(detail: str) -> str:
    """A database's error message as anyone may read it: its first line, at most 160 characters,
    without quoted names, addresses, ports, paths or anything shaped like a key or a token."""
    line = (detail.strip().splitlines() or [""])[0]
    for pattern, mark in _PLACES:
        line = pattern.sub(mark, line)
    return _SECRETS.sub("…", line)[:160].strip()


def scrub(text: str) -> str:
    """``text`` for the server's log: anything shaped like a teacher's key or a student's token hidden."""
    return _SECRETS.sub("…", text)


def log_failure(what: str, class_code: str, exc: BaseException, server_wide: bool) -> None:
    """One line in the server's log for a store failure: the operation, the class code (or "-"),
    whether it stops the store for every session, and the database's own message (scrubbed)."""
    detail = str(getattr(exc, "orig", None) or exc).strip().replace("\n", " | ")
    level = logging.ERROR if server_wide else logging.WARNING
    scope = "store unusable" if server_wide else "one write refused"
    LOG.log(level, "class store: %s failed for class %s (%s): %s", what, class_code or "-", scope, scrub(detail)[:500])
