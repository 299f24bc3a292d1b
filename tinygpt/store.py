"""The class store: classes, the answers students give, and short links, kept in a database.

Three kinds of records, behind one small interface (:class:`Store`), free of Streamlit:

- **classes**: a short class code (six letters and digits a student can type, e.g. ``K7M2QP``), a
  hash of the teacher's secret key (the key itself is never stored), the lesson the class runs (a
  query string), when it was created and when it was closed;
- **answers**: one row per student and question of a class (or of no class, ``class_code`` ""):
  the question's id, the answer, right or wrong and when. Students are anonymous: a student is a
  random token the app makes for a browser tab (``me=``), plus a nickname only if the student
  typed one. The first answer of a student to a question is the one kept (a reload that answers
  again changes nothing). The questions themselves (their text and choices, to draw the teacher's
  view in the teacher's language) are kept once per class in **questions**;
- **short links**: an ASCII code (``Ab3xYz7``) -> a query string, so a lesson's long link becomes
  ``/?s=Ab3xYz7`` on a projector or in a chat app.

Where: SQLite by default (one file, ``tinygpt.sqlite3``, in WAL mode so readers never wait for
the writer), in the folder named by the environment variable ``TINYGPT_DATA_DIR`` (default
``.data`` beside the app); PostgreSQL when ``TINYGPT_DATABASE_URL`` names one
(``postgresql://user:password@host/db``), which is what several servers serving one class share.

The schema is created on first use and versioned in the table ``schema_version``; a database
written by a newer version of the app is refused (:class:`StoreError`, key ``store.schema_newer``)
rather than misread. Answers older than ``TINYGPT_ANSWER_DAYS`` days (default 30), classes with
them, resume links (a short link holding a student's token) made before then and short links not
opened for :data:`LINK_DAYS` days are never read and are deleted (:meth:`Store.purge`, run hourly by
a timer, :mod:`tinygpt.store_upkeep`, and at most hourly by the writes).

Text from outside is cleaned before it reaches the database (:mod:`tinygpt.store_text`).

Errors: a store that cannot be reached (a stopped server, a folder that cannot be written, a
malformed URL, a SQLite file deleted while the app runs) raises :class:`StoreError`, the one type
the pages turn into a message; after a connection failure the store answers at once with the same
error for :data:`RETRY_SECONDS` instead of waiting for the database again, so pages stay quick
while it is down. A value the database refuses is that one call's error (``store.refused``), never
the server's. Every failure is logged (logger ``tinygpt.store``) with the class code, never a key
or a token. An unknown or closed class or a wrong teacher key raise :class:`ClassError`. Codes
read from a URL go through :func:`read_code`, which refuses anything but the code's own alphabet
and length (:class:`~tinygpt.config.ConfigError` naming the value).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text
from tinygpt.numbers import read_int
from tinygpt.store_files import file_gone, file_id, sqlite_path
from tinygpt.store_migrate import migrate
from tinygpt.store_text import clean_json, clean_text, log_failure, public_reason

#: The version of the schema this code writes and reads (2: answers have a round; the class period's state).
SCHEMA_VERSION = 2
ENV_URL = "TINYGPT_DATABASE_URL"
ENV_DIR = "TINYGPT_DATA_DIR"
ENV_ANSWER_DAYS = "TINYGPT_ANSWER_DAYS"
#: Where the SQLite file goes when ``TINYGPT_DATA_DIR`` is not set: ``.data`` beside the app.
DEFAULT_DIR = Path(__file__).resolve().parents[1] / ".data"
SQLITE_FILE = "tinygpt.sqlite3"
DEFAULT_ANSWER_DAYS = 30
MAX_ANSWER_DAYS = 3650
#: Short links not opened for this many days are deleted.
LINK_DAYS = 365
#: After the database could not be reached, fail at once for this long before trying again.
RETRY_SECONDS = 5.0
#: The purge runs at most this often (seconds), started by a write.
PURGE_EVERY_S = 3600.0
#: Seconds a PostgreSQL connection attempt may take; SQLite waits this long for a lock.
CONNECT_TIMEOUT_S = 5

#: Class codes: letters and digits that cannot be mistaken for each other (no I, O, 0, 1).
CLASS_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CLASS_CODE_LEN = 6
#: Short link codes: both cases, without l, I, O, 0 and 1.
LINK_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LINK_CODE_LEN = 7
#: A student's token (``me=``): 16 lower-case hex digits.
STUDENT_ALPHABET = "0123456789abcdef"
STUDENT_LEN = 16
#: A teacher's key (``key=``): 24 URL-safe characters (secrets.token_urlsafe(18)).
KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
KEY_LEN = 24
MAX_NICKNAME = 24
#: The longest query string a short link or a lesson holds (a long training text fits).
MAX_QUERY_CHARS = 8000
MAX_TEXT_CHARS = 2000
QUESTION_ID_LEN = 64


class StoreError(Exception):
    """The store cannot be used: ``key`` is the i18n key of the message, ``params`` its fields.

    Keys: ``store.unreachable`` (the database cannot be reached or written; ``reason`` says why),
    ``store.schema_newer`` (the database was written by a newer version: ``found``, ``supported``),
    ``store.bad_url`` (``TINYGPT_DATABASE_URL`` is not a database URL: ``url`` without password).
    """

    def __init__(self, key: str, message: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(message)


class ClassError(Exception):
    """A class that cannot be used as asked: ``key`` is ``class.unknown``, ``class.closed`` or
    ``class.bad_key`` (the teacher's key does not match); ``code`` is the class code."""

    def __init__(self, key: str, code: str) -> None:
        self.key = key
        self.code = code
        super().__init__(f"{key}: {code}")


@dataclass(frozen=True)
class ClassInfo:
    """One class: its code, the lesson's query string, when it was created and closed (Unix seconds)."""

    code: str
    lesson: str
    created: float
    closed: float | None

    @property
    def is_open(self) -> bool:
        """True until the teacher closes the class."""
        return self.closed is None


@dataclass(frozen=True)
class NewAnswer:
    """An answer to record.

    Attributes:
        class_code: the class ("" for a student in no class).
        question_id: the question's id, the same for every student shown the same question.
        question_text: the question as the student read it (in the student's language).
        question: what it takes to draw the question again (its i18n key, fields, choices, right
            answers), JSON-serialisable; kept once per class and question.
        student: the student's anonymous token.
        answer: the choice ids picked, comma-separated in the order shown.
        answer_text: the same as the student saw it (choice labels).
        right: whether the answer is right.
        nickname: what the student typed as a nickname, or None.
        round: the vote's round (1, or 2 after "discuss, then answer again"); one answer per round.
    """

    class_code: str
    question_id: str
    question_text: str
    question: dict
    student: str
    answer: str
    answer_text: str
    right: bool
    nickname: str | None = None
    round: int = 1


@dataclass(frozen=True)
class Answer:
    """A recorded answer (``at``: Unix seconds)."""

    class_code: str
    question_id: str
    question_text: str
    student: str
    nickname: str | None
    answer: str
    answer_text: str
    right: bool
    at: float


@dataclass(frozen=True)
class QuestionSummary:
    """What a class answered to one question.

    Attributes:
        question_id, text, question: the question (``question`` as recorded, see :class:`NewAnswer`).
        answered: how many students answered it; ``right``: how many of them rightly.
        spread: answer (choice ids) -> how many students gave it, most frequent first.
        labels: answer -> its text as a student saw it.
        right_answers: the answers that were right.
    """

    question_id: str
    text: str
    question: dict
    answered: int
    right: int
    spread: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    right_answers: frozenset[str] = frozenset()

    @property
    def share_right(self) -> float:
        """right / answered (0 when nobody answered)."""
        return self.right / self.answered if self.answered else 0.0


_metadata = sa.MetaData()
_version_table = sa.Table("schema_version", _metadata, sa.Column("version", sa.Integer, nullable=False))
_classes = sa.Table(
    "classes",
    _metadata,
    sa.Column("code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),
    sa.Column("lesson", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("closed_at", sa.Float, nullable=True),
)
_questions = sa.Table(
    "questions",
    _metadata,
    sa.Column("class_code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("question_id", sa.String(QUESTION_ID_LEN), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("first_at", sa.Float, nullable=False),
)
_answers = sa.Table(
    "answers",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(CLASS_CODE_LEN), nullable=False),
    sa.Column("question_id", sa.String(QUESTION_ID_LEN), nullable=False),
    sa.Column("student", sa.String(STUDENT_LEN), nullable=False),
    sa.Column("nickname", sa.String(MAX_NICKNAME), nullable=True),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("answer_text", sa.Text, nullable=False),
    sa.Column("is_right", sa.Boolean, nullable=False),
    sa.Column("answered_at", sa.Float, nullable=False),
    sa.Column("round", sa.Integer, nullable=False, server_default="1"),
    sa.UniqueConstraint("class_code", "question_id", "student", "round", name="one_answer_per_student"),
    sa.Index("answers_by_student", "student"),
    sa.Index("answers_by_time", "answered_at"),
)
_links = sa.Table(
    "short_links",
    _metadata,
    sa.Column("code", sa.String(LINK_CODE_LEN), primary_key=True),
    sa.Column("query_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("query", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("used_at", sa.Float, nullable=False),
)
#: Trained models published for every server sharing the store (``tinygpt.model_library`` reads and
#: writes it): a checkpoint under the hash of the training code and its settings. Created beside the
#: versioned tables in every schema (a table of its own, which no older version reads).
models_table = sa.Table(
    "models",
    _metadata,
    sa.Column("name", sa.String(64), primary_key=True),  # model_library.store_name(settings)
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("checkpoint", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("used_at", sa.Float, nullable=False),
)
#: The class period's current state, one row per class (``tinygpt.period`` reads and writes it).
class_state_table = sa.Table(
    "class_state",
    _metadata,
    sa.Column("class_code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)
#: A number PostgreSQL's advisory lock uses while one server creates the schema.
_SCHEMA_LOCK = 2_025_250_001
#: Failures meaning the database cannot be reached at all (every session's problem, not one value's).
_SERVER_WIDE = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.DisconnectionError, sa_exc.TimeoutError, OSError)


def read_code(raw: str, name: str, alphabet: str, length: int, upper: bool = False) -> str:
    """A code from outside (a URL): exactly ``length`` characters of ``alphabet``.

    ``upper``: lower-case letters are read as upper-case (class codes are typed by hand).
    Raises ConfigError (key ``code``) naming the value and the accepted form.
    """
    text = raw.strip()
    if upper:
        text = text.upper()
    if len(text) != length or any(c not in alphabet for c in text):
        raise ConfigError(name, shown_text(raw), f"{length} characters of {alphabet}", "code", n=length)
    return text


def read_class_code(raw: str) -> str:
    """A class code from a URL (``class=``), case ignored; ConfigError otherwise."""
    return read_code(raw, "class", CLASS_ALPHABET, CLASS_CODE_LEN, upper=True)


def read_link_code(raw: str) -> str:
    """A short link's code from a URL (``s=``), in either case (a phone capitalises what a
    student types from a projector; :meth:`Store.resolve` finds the code ignoring case); ConfigError otherwise."""
    return read_code(raw, "s", LINK_ALPHABET + LINK_ALPHABET.swapcase(), LINK_CODE_LEN)


def read_student(raw: str) -> str:
    """A student's token from a URL (``me=``); ConfigError otherwise."""
    return read_code(raw.lower(), "me", STUDENT_ALPHABET, STUDENT_LEN)


def read_teacher_key(raw: str) -> str:
    """A teacher's key from a URL (``key=``); ConfigError otherwise."""
    return read_code(raw, "key", KEY_ALPHABET, KEY_LEN)


def new_student() -> str:
    """A fresh anonymous student token."""
    return secrets.token_hex(STUDENT_LEN // 2)


def clean_nickname(raw: str | None) -> str | None:
    """A nickname as stored: cleaned (:func:`~tinygpt.store_text.clean_text`), without invisible
    formatting characters (a right-to-left override would reverse it on the teacher's screen), blanks joined,
    at most :data:`MAX_NICKNAME` characters, None when empty."""
    text = "".join(c for c in clean_text(raw or "") if unicodedata.category(c) != "Cf")  # no direction overrides
    text = " ".join(text.split())[:MAX_NICKNAME]
    return text or None


def _hash_key(key: str) -> str:
    # The key is 144 random bits, so one round of SHA-256 cannot be reversed by guessing.
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def _random_code(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


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


class Store:
    """Classes, answers and short links in one database (module docstring).

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
    def from_environment(cls, environ: dict[str, str] | None = None) -> Store:
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
            engine = sa.create_engine(url, connect_args={"timeout": CONNECT_TIMEOUT_S, "check_same_thread": False})

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
                    self._create_schema(self._engine)
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

    def transaction(
        self, write: bool = False, what: str = "read", code: str = ""
    ) -> AbstractContextManager[sa.Connection]:
        """A connection in a transaction (committed at the end), for a table kept beside the store's
        own (``tinygpt.model_library``, ``tinygpt.period``); a failure raises :class:`StoreError` as
        every call does, logged with ``what`` was done and the class ``code``."""
        return self._connection(write, what, code)

    def _create_schema(self, engine: sa.Engine) -> None:
        """Create the tables on first use; refuse a database of a newer schema (StoreError)."""
        for attempt in range(2):  # another server may create the tables at the same moment
            try:
                with engine.begin() as conn:
                    if conn.dialect.name == "postgresql":
                        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _SCHEMA_LOCK})
                    _version_table.create(conn, checkfirst=True)
                    found = conn.execute(sa.select(sa.func.max(_version_table.c.version))).scalar()
                    if found is None:
                        _metadata.create_all(conn, checkfirst=True)
                        conn.execute(_version_table.insert().values(version=SCHEMA_VERSION))
                    elif found > SCHEMA_VERSION:
                        raise StoreError(
                            "store.schema_newer",
                            f"the class store's schema is version {found}; this app reads version {SCHEMA_VERSION}",
                            found=found,
                            supported=SCHEMA_VERSION,
                        )
                    elif found < SCHEMA_VERSION:
                        migrate(conn, found, SCHEMA_VERSION, _answers, class_state_table, _version_table)
                    models_table.create(conn, checkfirst=True)  # in this locked transaction: no race
                return
            except (sa_exc.IntegrityError, sa_exc.ProgrammingError, sa_exc.OperationalError):
                if attempt:
                    raise

    def schema_version(self) -> int:
        """The schema version the database holds (creating the schema on first use)."""
        with self._connection() as conn:
            return int(conn.execute(sa.select(sa.func.max(_version_table.c.version))).scalar())

    def check(self, write: bool = False) -> None:
        """Reach the database (and create its schema on first use); with ``write``, write to it too
        (a row rewritten with its own value), so a read-only file, folder or database is found.
        StoreError when it cannot."""
        if not write:
            self.schema_version()
            return
        with self._connection(what="check writing") as conn:
            conn.execute(_version_table.update().values(version=_version_table.c.version))

    def _cutoff(self) -> float:
        """Unix seconds before which answers and classes have expired."""
        return self.clock() - self.keep_days * 86400

    def _live_answers(self, cutoff: float) -> sa.ColumnElement[bool]:
        """Answers not expired, of no class or of a class not expired (what a read may show)."""
        live_classes = sa.select(_classes.c.code).where(_classes.c.created_at >= cutoff)
        return sa.and_(
            _answers.c.answered_at >= cutoff,
            sa.or_(_answers.c.class_code == "", _answers.c.class_code.in_(live_classes)),
        )

    def dispose(self) -> None:
        """Close the pooled connections (a test's end, a changed URL)."""
        if self._engine is not None:
            self._engine.dispose()

    # ------------------------------------------------------------------ classes

    def create_class(self, lesson: str) -> tuple[str, str]:
        """Open a class running ``lesson`` (a query string); returns (class code, teacher's key).

        The key is returned once and only its hash is kept: whoever holds it can see and close
        the class. Raises ValueError for a lesson longer than :data:`MAX_QUERY_CHARS`.
        """
        lesson = clean_text(lesson)
        if len(lesson) > MAX_QUERY_CHARS:
            raise ValueError(f"a lesson of {len(lesson)} characters; at most {MAX_QUERY_CHARS}")
        key = secrets.token_urlsafe(18)
        for _ in range(20):  # a code already taken: draw again (1 in 10^9 per existing class)
            code = _random_code(CLASS_ALPHABET, CLASS_CODE_LEN)
            try:
                with self._connection(write=True, what="create a class", code=code) as conn:
                    conn.execute(
                        _classes.insert().values(
                            code=code, teacher_hash=_hash_key(key), lesson=lesson, created_at=self.clock()
                        )
                    )
                return code, key
            except sa_exc.IntegrityError:
                continue
        raise StoreError("store.unreachable", "no free class code", reason="no free class code")

    def get_class(self, code: str) -> ClassInfo | None:
        """The class ``code``, or None when there is none (or it has expired)."""
        with self._connection(what="read a class", code=code) as conn:
            row = conn.execute(
                sa.select(_classes).where(_classes.c.code == code, _classes.c.created_at >= self._cutoff())
            ).first()
        return None if row is None else ClassInfo(row.code, row.lesson, row.created_at, row.closed_at)

    def is_teacher(self, code: str, key: str) -> bool:
        """True when ``key`` is the teacher's key of class ``code`` (False for an unknown or expired class)."""
        with self._connection(what="check a teacher's key", code=code) as conn:
            stored = conn.execute(self._teacher_hash(code)).scalar()
        return stored is not None and hmac.compare_digest(stored, _hash_key(key))

    def _teacher_hash(self, code: str) -> sa.Select:
        live = _classes.c.created_at >= self._cutoff()
        return sa.select(_classes.c.teacher_hash).where(_classes.c.code == code, live)

    def _require_teacher(self, conn: sa.Connection, code: str, key: str) -> None:
        stored = conn.execute(self._teacher_hash(code)).scalar()
        if stored is None:
            raise ClassError("class.unknown", code)
        if not hmac.compare_digest(stored, _hash_key(key)):
            raise ClassError("class.bad_key", code)

    def close_class(self, code: str, key: str) -> None:
        """Close the class: its students' answers are no longer recorded. ClassError for a wrong key."""
        with self._connection(write=True, what="close a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            conn.execute(
                _classes.update()
                .where(_classes.c.code == code, _classes.c.closed_at.is_(None))
                .values(closed_at=self.clock())
            )

    def reopen_class(self, code: str, key: str) -> None:
        """Open a closed class again. ClassError for a wrong key."""
        with self._connection(write=True, what="reopen a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            conn.execute(_classes.update().where(_classes.c.code == code).values(closed_at=None))

    def clear_class(self, code: str, key: str) -> int:
        """Delete every answer (and question) of the class; returns how many answers. ClassError for a wrong key."""
        with self._connection(write=True, what="clear a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            deleted = conn.execute(_answers.delete().where(_answers.c.class_code == code)).rowcount
            conn.execute(_questions.delete().where(_questions.c.class_code == code))
        return deleted

    # ------------------------------------------------------------------ answers

    def _insert_ignoring_duplicate(self, conn: sa.Connection, table: sa.Table, values: dict) -> bool:
        """Insert a row unless its unique key exists; True when inserted."""
        if conn.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        elif conn.dialect.name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert
        else:  # another database: a savepoint keeps the transaction usable after a duplicate
            try:
                with conn.begin_nested():
                    conn.execute(table.insert().values(**values))
                return True
            except sa_exc.IntegrityError:
                return False
        # RETURNING, not rowcount: with an autoincrement key some drivers report -1 rows
        statement = insert(table).values(**values).on_conflict_do_nothing().returning(*table.primary_key.columns)
        return conn.execute(statement).first() is not None

    def record_answer(self, new: NewAnswer) -> bool:
        """Keep a student's answer; True when kept, False when the student had answered that
        question of that class before (the first answer stays).

        Raises ClassError (``class.unknown``, ``class.closed``) for a class that does not take
        answers, StoreError when the store cannot be reached, ValueError for a malformed token.
        """
        read_student(new.student)
        if new.class_code:
            read_class_code(new.class_code)
        now = self.clock()
        with self._connection(write=True, what="record an answer", code=new.class_code) as conn:
            if new.class_code:
                closed = conn.execute(
                    sa.select(_classes.c.closed_at, _classes.c.code).where(
                        _classes.c.code == new.class_code, _classes.c.created_at >= self._cutoff()
                    )
                ).first()
                if closed is None:
                    raise ClassError("class.unknown", new.class_code)
                if closed.closed_at is not None:
                    raise ClassError("class.closed", new.class_code)
            self._insert_ignoring_duplicate(
                conn,
                _questions,
                {
                    "class_code": new.class_code,
                    "question_id": clean_text(new.question_id, QUESTION_ID_LEN),
                    "text": clean_text(new.question_text, MAX_TEXT_CHARS),
                    "data": clean_json(new.question),
                    "first_at": now,
                },
            )
            return self._insert_ignoring_duplicate(
                conn,
                _answers,
                {
                    "class_code": new.class_code,
                    "question_id": clean_text(new.question_id, QUESTION_ID_LEN),
                    "student": new.student,
                    "nickname": clean_nickname(new.nickname),
                    "answer": clean_text(new.answer, MAX_TEXT_CHARS),
                    "answer_text": clean_text(new.answer_text, MAX_TEXT_CHARS),
                    "is_right": bool(new.right),
                    "answered_at": now,
                    "round": int(new.round),
                },
            )

    def answers(self, class_code: str | None = None, student: str | None = None) -> list[Answer]:
        """Recorded answers not expired, oldest first: of one class, of one student, or both."""
        q = (
            sa.select(_answers, _questions.c.text)
            .join(
                _questions,
                sa.and_(
                    _questions.c.class_code == _answers.c.class_code, _questions.c.question_id == _answers.c.question_id
                ),
            )
            .where(self._live_answers(self._cutoff()))
        )
        if class_code is not None:
            q = q.where(_answers.c.class_code == class_code)
        if student is not None:
            q = q.where(_answers.c.student == student)
        with self._connection(what="read answers", code=class_code or "") as conn:
            rows = conn.execute(q.order_by(_answers.c.answered_at, _answers.c.id)).all()
        return [
            Answer(
                r.class_code,
                r.question_id,
                r.text,
                r.student,
                r.nickname,
                r.answer,
                r.answer_text,
                r.is_right,
                r.answered_at,
            )
            for r in rows
        ]

    def count_answers(self, class_code: str) -> int:
        """How many answers (not expired) class ``class_code`` has."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="count answers", code=class_code) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count()).select_from(_answers).where(_answers.c.class_code == class_code, live)
                ).scalar()
            )

    def summary(self, class_code: str) -> list[QuestionSummary]:
        """Per question of the class, in the order first answered: how many answered, how many
        rightly, and the spread of the answers (most frequent first); of a class vote, its first round;
        expired answers are not counted."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="summarise answers", code=class_code) as conn:
            questions = conn.execute(
                sa.select(_questions).where(_questions.c.class_code == class_code).order_by(_questions.c.first_at)
            ).all()
            counts = conn.execute(
                sa.select(
                    _answers.c.question_id,
                    _answers.c.answer,
                    _answers.c.is_right,
                    sa.func.min(_answers.c.answer_text),
                    sa.func.count(),
                )
                .where(_answers.c.class_code == class_code, live, _answers.c.round == 1)  # round 2: tinygpt.period
                .group_by(_answers.c.question_id, _answers.c.answer, _answers.c.is_right)
            ).all()
        by_question: dict[str, list] = {}
        for row in counts:
            by_question.setdefault(row[0], []).append(row)
        summaries = []
        for q in (q for q in questions if q.question_id in by_question):
            rows = sorted(by_question.get(q.question_id, []), key=lambda r: (-r[4], r[1]))
            summaries.append(
                QuestionSummary(
                    question_id=q.question_id,
                    text=q.text,
                    question=json.loads(q.data),
                    answered=sum(r[4] for r in rows),
                    right=sum(r[4] for r in rows if r[2]),
                    spread={r[1]: r[4] for r in rows},
                    labels={r[1]: r[3] for r in rows},
                    right_answers=frozenset(r[1] for r in rows if r[2]),
                )
            )
        return summaries

    def students(self, class_code: str) -> int:
        """How many students answered at least one question of the class (answers not expired)."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="count students", code=class_code) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count(sa.distinct(_answers.c.student))).where(
                        _answers.c.class_code == class_code, live
                    )
                ).scalar()
            )

    # ------------------------------------------------------------------ short links

    def _link_cutoffs(self) -> sa.ColumnElement[bool]:
        """Short links alive: opened within :data:`LINK_DAYS` days, and a resume link (holding a
        student's token, ``me=``) made within the days answers are kept (it opens nothing older)."""
        now = self.clock()
        resume = sa.or_(_links.c.query.like("me=%"), _links.c.query.like("%&me=%"))
        return sa.and_(
            _links.c.used_at >= now - LINK_DAYS * 86400, sa.or_(~resume, _links.c.created_at >= self._cutoff())
        )

    def shorten(self, query: str) -> str:
        """The short code of ``query`` (cleaned, :func:`~tinygpt.store_text.clean_text`; the same
        code for the same query), unique whatever the case it is typed in. ValueError for a query
        longer than :data:`MAX_QUERY_CHARS`."""
        query = clean_text(query)
        if len(query) > MAX_QUERY_CHARS:
            raise ValueError(f"a link of {len(query)} characters; at most {MAX_QUERY_CHARS}")
        digest = hashlib.sha256(query.encode("utf-8")).hexdigest()
        for _ in range(20):
            with self._connection(write=True, what="make a short link") as conn:
                now = self.clock()
                found = conn.execute(
                    sa.select(_links.c.code, self._link_cutoffs().label("alive")).where(_links.c.query_hash == digest)
                ).first()
                if found is not None:
                    if not found.alive:  # expired, not purged yet: it lives again from now
                        conn.execute(
                            _links.update().where(_links.c.code == found.code).values(created_at=now, used_at=now)
                        )
                    return found.code
                code = _random_code(LINK_ALPHABET, LINK_CODE_LEN)
                same = sa.select(_links.c.code).where(sa.func.lower(_links.c.code) == code.lower())
                if conn.execute(same).first() is not None:
                    continue
                values = {"code": code, "query_hash": digest, "query": query, "created_at": now, "used_at": now}
                if self._insert_ignoring_duplicate(conn, _links, values):
                    return code
            # the code was taken, or another server stored this query meanwhile: look again
        raise StoreError("store.unreachable", "no free short link code", reason="no free short link code")

    def resolve(self, code: str) -> str | None:
        """The query string of short link ``code``, or None when there is none (or it has expired,
        :meth:`_link_cutoffs`). A code typed in another case (from a projector, on a phone) finds
        its link: no two codes differ only in case."""
        with self._connection(what="open a short link") as conn:
            columns = (_links.c.code, _links.c.query, _links.c.used_at)
            alive = self._link_cutoffs()
            row = conn.execute(sa.select(*columns).where(_links.c.code == code, alive)).first()
            if row is None:
                lower = sa.func.lower(_links.c.code) == code.lower()
                rows = conn.execute(sa.select(*columns).where(lower, alive)).all()
                row = rows[0] if len(rows) == 1 else None
            now = self.clock()
            if row is not None and now - row.used_at > 86400:  # kept alive by use, written at most daily
                conn.execute(_links.update().where(_links.c.code == row.code).values(used_at=now))
        return None if row is None else row.query

    # ------------------------------------------------------------------ expiry

    def purge(self) -> dict[str, int]:
        """Delete answers older than ``keep_days`` days, classes created before that (with their
        questions and answers), questions no answer refers to any more, short links not opened for
        :data:`LINK_DAYS` days and resume links older than ``keep_days`` days. Returns how many rows
        of each kind were deleted."""
        cutoff = self._cutoff()
        with self._connection(what="delete expired records") as conn:
            old_classes = sa.select(_classes.c.code).where(_classes.c.created_at < cutoff)
            answers = conn.execute(
                _answers.delete().where(sa.or_(_answers.c.answered_at < cutoff, _answers.c.class_code.in_(old_classes)))
            ).rowcount
            used = sa.select(_answers.c.class_code, _answers.c.question_id).where(
                _answers.c.class_code == _questions.c.class_code, _answers.c.question_id == _questions.c.question_id
            )
            questions = conn.execute(_questions.delete().where(~sa.exists(used))).rowcount
            conn.execute(class_state_table.delete().where(class_state_table.c.class_code.in_(old_classes)))
            classes = conn.execute(_classes.delete().where(_classes.c.created_at < cutoff)).rowcount
            links = conn.execute(_links.delete().where(~self._link_cutoffs())).rowcount
        return {"answers": answers, "questions": questions, "classes": classes, "links": links}
