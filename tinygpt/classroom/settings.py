"""The operator's ``TINYGPT_*`` settings checked together, so that a bad one is said when the server
starts (its log) rather than when a teacher first meets it. Streamlit-free.

Each setting is read where it is used (the class store, the training queue, the teacher's cookie,
the proxies); :func:`check_settings` asks each reader once and gathers what they refuse.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from tinygpt.classroom.guard import teacher_hours, trusted_proxies
from tinygpt.classroom.store_connection import ENV_URL, answer_days
from tinygpt.config import ConfigError

#: Whole-number settings of the training queue and memory: (name, smallest accepted).
_WHOLE = (
    ("TINYGPT_MAX_JOBS", 1),
    ("TINYGPT_MAX_WAITING", 0),
    ("TINYGPT_MEMORY_LIMIT_MB", 0),
    ("TINYGPT_TRAIN_THREADS", 1),
)


def _whole(name: str, least: int) -> Callable[[Mapping[str, str]], object]:
    def check(env: Mapping[str, str]) -> object:
        raw = (env.get(name) or "").strip()
        if raw and not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) >= least):
            raise ConfigError(name, raw, f"a whole number ≥ {least}")
        return raw

    return check


def _font_dirs(env: Mapping[str, str]) -> object:
    for folder in filter(None, (env.get("TINYGPT_FONT_DIRS") or "").split(os.pathsep)):
        if not os.path.isdir(folder):
            raise ConfigError("TINYGPT_FONT_DIRS", folder, "folders that exist, separated by " + os.pathsep)
    return None


def _database(env: Mapping[str, str]) -> object:
    url = (env.get(ENV_URL) or "").strip()
    if url and not url.startswith(("sqlite:///", "postgresql://", "postgres://", "postgresql+psycopg://")):
        raise ConfigError(ENV_URL, "(not shown: it may hold a password)", "sqlite:///… or postgresql://…")
    return None


def checks() -> list[Callable[[Mapping[str, str]], object]]:
    """The readers :func:`check_settings` runs, each given the environment."""
    return [answer_days, teacher_hours, trusted_proxies, _database, _font_dirs] + [_whole(n, m) for n, m in _WHOLE]


def check_settings(environ: Mapping[str, str] | None = None) -> list[ConfigError]:
    """Every ``TINYGPT_*`` setting of ``environ`` (the process's environment by default) that its
    reader refuses, in the order of :func:`checks`; [] when all are accepted or unset."""
    env = dict(os.environ if environ is None else environ)
    refused = []
    for check in checks():
        try:
            check(env)
        except ConfigError as exc:
            refused.append(exc)
    return refused


def setting_lines(environ: Mapping[str, str] | None = None) -> list[str]:
    """One English line per refused setting for the server's log: its name, the value, what is accepted
    and what is off until it is fixed."""
    return [
        f"setting {exc.field}={exc.value!s} refused (accepted: {exc.accepted}); "
        "the features that read it are off or use the default until it is fixed"
        for exc in check_settings(environ)
    ]
