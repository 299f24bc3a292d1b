"""The SQLite file a class store opened, watched: a folder deleted (or a file replaced) while the app
runs is found before the next write, instead of answers going on into a deleted file that a
restart would not find."""

from __future__ import annotations

import os

import sqlalchemy as sa


def sqlite_path(url: sa.URL) -> str | None:
    """The file of a SQLite URL (``sqlite:///path`` or ``sqlite:///file:path?uri=true``), None for
    another database or one in memory."""
    database = url.database if url.get_backend_name() == "sqlite" else None
    if database and url.query.get("uri") and database.startswith("file:"):
        database = database[len("file:") :]
    return None if not database or database == ":memory:" else database


def file_id(url: sa.URL) -> tuple[str, int, int] | None:
    """(path, device, inode) of a SQLite URL's file as it is now, None for another database or one
    in memory. OSError when the file does not exist."""
    path = sqlite_path(url)
    if path is None:
        return None
    found = os.stat(path)
    return path, found.st_dev, found.st_ino


def file_gone(opened: tuple[str, int, int] | None) -> str | None:
    """Why the file ``opened`` (:func:`file_id`) is no longer the one at its path (deleted, moved
    or replaced), in English for the server's log; None when it is, or for no file."""
    if opened is None:
        return None
    try:
        found = os.stat(opened[0])
    except OSError:
        found = None
    if found is None or (found.st_dev, found.st_ino) != opened[1:]:
        return f"the SQLite file {opened[0]} was deleted or replaced while the app ran"
    return None
