"""The class store's connection: where the database is (the environment), its engine, one
connection in a transaction, the schema created on first use, and every database failure turned
into :class:`~tinygpt.classroom.store_records.StoreError` (the module docstring of :mod:`tinygpt.classroom.store`)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from tinygpt.classroom.store_files import file_gone, file_id, sqlite_path
from tinygpt.classroom.store_records import ClassError, StoreError
from tinygpt.classroom.store_schema import create_schema, version_table
from tinygpt.classroom.store_text import log_failure, public_reason
from tinygpt.formatting import shown_text
from tinygpt.numbers import read_int

ENV_URL = "TINYGPT_DATABASE_URL"
ENV_DIR = "TINYGPT_DATA_DIR"
ENV_ANSWER_DAYS = "TINYGPT_ANSWER_DAYS"
#: Where the SQLite file goes when ``TINYGPT_DATA_DIR`` is not set: ``.data`` beside the app.
DEFAULT_DIR = Path(__file__).resolve().parents[2] / ".data"
SQLITE_FILE = "tinygpt.sqlite3"
DEFAULT_ANSWER_DAYS = 30
MAX_ANSWER_DAYS = 3650
#: After the database could not be reached, fail at once for this long before trying again.
RETRY_SECONDS = 5.0
#: The purge runs at most this often (seconds), started by a write.
PURGE_EVERY_S = 3600.0
#: Seconds a PostgreSQL connection attempt may take; SQLite waits this long for a lock.
CONNECT_TIMEOUT_S = 5
_SERVER_WIDE = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.DisconnectionError, sa_exc.TimeoutError, OSError)


def database_url(environ: dict[str, str] | None = None) -> str:
    """The store's SQLAlchemy URL from the environment: ``TINYGPT_DATABASE_URL`` when set (a
    ``postgresql://`` URL is read with psycopg 3), else the SQLite file in ``TINYGPT_DATA_DIR``."""
    env = os.environ if environ is None else environ
    url = (env.get(ENV_URL) or "").strip()
    if url:
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url
    folder = Path(env.get(ENV_DIR) or DEFAULT_DIR)
    return f"sqlite:///{folder / SQLITE_FILE}"


def answer_days(environ: dict[str, str] | None = None) -> int:
    """Days answers are kept: ``TINYGPT_ANSWER_DAYS`` (1..3650), default 30; ConfigError otherwise."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_ANSWER_DAYS)
    return DEFAULT_ANSWER_DAYS if raw is None or not raw.strip() else read_int(raw, ENV_ANSWER_DAYS, 1, MAX_ANSWER_DAYS)


def _safe_url(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa_exc.ArgumentError:
        return shown_text(url.split("@")[-1], 60)


class StoreConnection:
    """The class store's database: its engine, a connection in a transaction, its schema created
    on first use, and the failures turned into :class:`StoreError` (:class:`tinygpt.classroom.store.Store`
    adds the classes, answers and short links).

    Args:
        url: a SQLAlchemy URL (``sqlite:///path`` or ``postgresql+psycopg://…``); see :func:`database_url`.
        keep_days: answers (and classes) older than this many days are deleted by :meth:`purge`.
        clock: the time in Unix seconds (tests pass their own).
    Nothing touches the database until the first call; every call may raise :class:`StoreError`.
    Safe to share between threads (the engine pools connections).
    """

    def __init__(self, url: str, keep_days: float = DEFAULT_ANSWER_DAYS, clock: Callable[[], float] = time.time):
        self.url = url
        self.keep_days = keep_days
        self.clock = clock
        self._engine: sa.Engine | None = None
        self._lock = threading.Lock()
        self._ready = False
        self._down_until = 0.0
        self._down_reason = ""
        self._last_purge = float("-inf")
        self._file_id: tuple[str, int, int] | None = None  # SQLite: (path, device, inode) of the file opened

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Self:
        """The store the environment names (:func:`database_url`, :func:`answer_days`)."""
        return cls(database_url(environ), answer_days(environ))

    @property
    def kind(self) -> str:
        """``sqlite`` or ``postgresql`` (the database's dialect)."""
        return self.url.split(":", 1)[0].split("+", 1)[0]

    # ------------------------------------------------------------------ connection and schema

    def _make_engine(self) -> sa.Engine:
        try:
            url = sa.engine.make_url(self.url)
        except sa_exc.ArgumentError as exc:
            raise StoreError(
                "store.bad_url", f"not a database URL: {_safe_url(self.url)}", url=_safe_url(self.url)
            ) from exc
        if url.get_backend_name() == "sqlite":
            if sqlite_path(url) is not None:
                try:
                    Path(sqlite_path(url)).parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise self._unreachable(exc, "create the folder") from exc
            # no prepared statements kept: a kept statement holds its last bound values, and a published
            # model's checkpoint (a blob of up to hundreds of MB) would stay in memory with it
            engine = sa.create_engine(
                url, connect_args={"timeout": CONNECT_TIMEOUT_S, "check_same_thread": False, "cached_statements": 0}
            )

            @sa.event.listens_for(engine, "connect")
            def _sqlite_pragmas(dbapi_connection, _record) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")  # readers do not wait for the one writer
                cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; a commit is not an fsync
                cursor.execute(f"PRAGMA busy_timeout={CONNECT_TIMEOUT_S * 1000}")
                cursor.close()

            return engine
        try:
            return sa.create_engine(
                url,
                pool_pre_ping=True,  # a server restarted since the last use is found before the query
                pool_size=5,
                max_overflow=10,
                connect_args={"connect_timeout": CONNECT_TIMEOUT_S} if url.get_backend_name() == "postgresql" else {},
            )
        except (sa_exc.ArgumentError, ImportError, sa_exc.NoSuchModuleError) as exc:
            raise StoreError(
                "store.bad_url", f"not a usable database URL: {_safe_url(self.url)}", url=_safe_url(self.url)
            ) from exc

    def _unreachable(self, exc: BaseException, what: str = "connect", code: str = "") -> StoreError:
        """The error for a failure of ``what`` (logged with the class ``code``): a connection
        failure stops the store for :data:`RETRY_SECONDS` (``store.unreachable``); any other (a
        value the database refuses) is that one call's error (``store.refused``)."""
        server_wide = isinstance(exc, _SERVER_WIDE) or bool(getattr(exc, "connection_invalidated", False))
        log_failure(what, code, exc, server_wide)
        reason = public_reason(str(getattr(exc, "orig", None) or exc)) or type(exc).__name__
        if not server_wide:
            return StoreError("store.refused", f"the class store refused a write: {reason}", reason=reason)
        self._down_until = time.monotonic() + RETRY_SECONDS
        self._down_reason = reason
        return StoreError("store.unreachable", f"the class store cannot be reached: {reason}", reason=reason)

    def _check_file(self, what: str, code: str) -> None:
        """SQLite: the database file is still the one opened (not deleted or replaced); StoreError ``store.gone``."""
        if (gone := file_gone(self._file_id)) is not None:
            log_failure(what, code, FileNotFoundError(gone), server_wide=True)
            raise StoreError("store.gone", gone)

    @contextmanager
    def _connection(self, write: bool = False, what: str = "read", code: str = "") -> Iterator[sa.Connection]:
        """A connection in a transaction (committed at the end); database failures -> StoreError,
        logged with ``what`` was done and the class ``code``."""
        if time.monotonic() < self._down_until:
            reason = self._down_reason
            raise StoreError("store.unreachable", f"the class store cannot be reached: {reason}", reason=reason)
        try:
            with self._lock:
                if self._engine is None:
                    self._engine = self._make_engine()
                if not self._ready:
                    create_schema(self._engine)
                    self._ready = True
                    self._file_id = file_id(self._engine.url)
            self._check_file(what, code)
            with self._engine.begin() as conn:
                yield conn
        except (StoreError, ClassError):
            raise
        except sa_exc.IntegrityError:
            raise
        except (sa_exc.SQLAlchemyError, OSError, ValueError) as exc:  # ValueError: a text a driver cannot encode
            raise self._unreachable(exc, what, code) from exc
        if write and self.clock() - self._last_purge > PURGE_EVERY_S:
            self._last_purge = self.clock()
            try:
                self.purge()
            except StoreError:  # logged; the write itself was kept
                pass

    def schema_version(self) -> int:
        """The schema version the database holds (creating the schema on first use)."""
        with self._connection() as conn:
            return int(conn.execute(sa.select(sa.func.max(version_table.c.version))).scalar())

    def check(self, write: bool = False) -> None:
        """Reach the database (and create its schema on first use); with ``write``, write to it too
        (a row rewritten with its own value), so a read-only file, folder or database is found.
        StoreError when it cannot."""
        if not write:
            self.schema_version()
            return
        with self._connection(what="check writing") as conn:
            conn.execute(version_table.update().values(version=version_table.c.version))

    def _cutoff(self) -> float:
        """Unix seconds before which answers and classes have expired."""
        return self.clock() - self.keep_days * 86400

    def dispose(self) -> None:
        """Close the pooled connections (a test's end, a changed URL)."""
        if self._engine is not None:
            self._engine.dispose()

    def purge(self) -> dict[str, int]:
        """Delete the expired records; a write runs it at most every :data:`PURGE_EVERY_S` seconds
        (:meth:`tinygpt.classroom.store.Store.purge` deletes the store's own). Returns how many rows of each kind."""
        return {}
