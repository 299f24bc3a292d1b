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
a timer, :mod:`tinygpt.classroom.store_upkeep`, and at most hourly by the writes).

Text from outside is cleaned before it reaches the database (:mod:`tinygpt.classroom.store_text`).

Errors: a store that cannot be reached (a stopped server, a folder that cannot be written, a
malformed URL, a SQLite file deleted while the app runs) raises :class:`StoreError`, the one type
the pages turn into a message; after a connection failure the store answers at once with the same
error for :data:`RETRY_SECONDS` instead of waiting for the database again, so pages stay quick
while it is down. A value the database refuses is that one call's error (``store.refused``), never
the server's. Every failure is logged (logger ``tinygpt.classroom.store``) with the class code, never a key
or a token. An unknown or closed class or a wrong teacher key raise :class:`ClassError`. Codes
read from a URL go through :func:`read_code`, which refuses anything but the code's own alphabet
and length (:class:`~tinygpt.config.ConfigError` naming the value).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from tinygpt.classroom.store_connection import (
    CONNECT_TIMEOUT_S,
    DEFAULT_ANSWER_DAYS,
    DEFAULT_DIR,
    ENV_ANSWER_DAYS,
    ENV_DIR,
    ENV_URL,
    MAX_ANSWER_DAYS,
    PURGE_EVERY_S,
    RETRY_SECONDS,
    SQLITE_FILE,
    StoreConnection,
    answer_days,
    database_url,
)
from tinygpt.classroom.store_models import ModelRows
from tinygpt.classroom.store_records import MARKS_PREFIX, ClassError, ClassInfo, NewAnswer, QuestionSummary, StoreError
from tinygpt.classroom.store_schema import (
    SCHEMA_VERSION,
    answers_table,
    class_state_table,
    classes_table,
    links_table,
    models_table,
    questions_table,
)
from tinygpt.classroom.store_text import clean_json, clean_text
from tinygpt.classroom.store_values import (
    CLASS_ALPHABET,
    CLASS_CODE_LEN,
    KEY_ALPHABET,
    KEY_LEN,
    LINK_ALPHABET,
    LINK_CODE_LEN,
    MAX_NICKNAME,
    MAX_QUERY_CHARS,
    MAX_TEXT_CHARS,
    QUESTION_ID_LEN,
    STUDENT_ALPHABET,
    STUDENT_LEN,
    clean_nickname,
    hash_key,
    new_student,
    random_code,
    read_class_code,
    read_code,
    read_link_code,
    read_student,
    read_teacher_key,
)
from tinygpt.classroom.tally import count_votes
from tinygpt.explanations.answers import Answer

__all__ = [
    "CLASS_ALPHABET",
    "CLASS_CODE_LEN",
    "CONNECT_TIMEOUT_S",
    "DEFAULT_ANSWER_DAYS",
    "DEFAULT_DIR",
    "ENV_ANSWER_DAYS",
    "ENV_DIR",
    "ENV_URL",
    "KEY_ALPHABET",
    "KEY_LEN",
    "LINK_ALPHABET",
    "LINK_CODE_LEN",
    "LINK_DAYS",
    "MAX_ANSWER_DAYS",
    "MAX_NICKNAME",
    "MAX_QUERY_CHARS",
    "MAX_TEXT_CHARS",
    "PURGE_EVERY_S",
    "QUESTION_ID_LEN",
    "RETRY_SECONDS",
    "SCHEMA_VERSION",
    "SQLITE_FILE",
    "STUDENT_ALPHABET",
    "STUDENT_LEN",
    "Answer",
    "ClassError",
    "ClassInfo",
    "NewAnswer",
    "QuestionSummary",
    "Store",
    "StoreError",
    "answer_days",
    "class_state_table",
    "clean_nickname",
    "database_url",
    "models_table",
    "new_student",
    "read_class_code",
    "read_code",
    "read_link_code",
    "read_student",
    "read_teacher_key",
]

#: Short links not opened for this many days are deleted.
LINK_DAYS = 365


@dataclass(frozen=True)
class StoredState:
    """A class's stored period state: its JSON ``text``, its ``version`` (how many writes) and
    ``updated_at``, when it was last written or kept alive (Unix seconds)."""

    text: str
    version: int
    updated_at: float


class Store(ModelRows, StoreConnection):
    """Classes, answers and short links in one database (module docstring). Made as
    :class:`~tinygpt.classroom.store_connection.StoreConnection` is (``url``, ``keep_days``, ``clock``), whose
    connection, errors and schema it uses; every call may raise :class:`StoreError`. Safe to share
    between threads."""

    def _live_answers(self, cutoff: float, marks: bool = False) -> sa.ColumnElement[bool]:
        """Answers not expired, of no class or of a class not expired (what a read may show); marks
        made before a flip (:data:`MARKS_PREFIX`) only with ``marks``, else never."""
        live_classes = sa.select(classes_table.c.code).where(classes_table.c.created_at >= cutoff)
        is_mark = answers_table.c.question_id.startswith(MARKS_PREFIX, autoescape=True)
        return sa.and_(
            answers_table.c.answered_at >= cutoff,
            sa.or_(answers_table.c.class_code == "", answers_table.c.class_code.in_(live_classes)),
            is_mark if marks else ~is_mark,
        )

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
            code = random_code(CLASS_ALPHABET, CLASS_CODE_LEN)
            try:
                with self._connection(write=True, what="create a class", code=code) as conn:
                    conn.execute(
                        classes_table.insert().values(
                            code=code, teacher_hash=hash_key(key), lesson=lesson, created_at=self.clock()
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
                sa.select(classes_table).where(
                    classes_table.c.code == code, classes_table.c.created_at >= self._cutoff()
                )
            ).first()
        return None if row is None else ClassInfo(row.code, row.lesson, row.created_at, row.closed_at)

    def is_teacher(self, code: str, key: str) -> bool:
        """True when ``key`` is the teacher's key of class ``code`` (False for an unknown or expired class)."""
        with self._connection(what="check a teacher's key", code=code) as conn:
            stored = conn.execute(self._teacher_hash(code)).scalar()
        return stored is not None and hmac.compare_digest(stored, hash_key(key))

    def _teacher_hash(self, code: str) -> sa.Select:
        live = classes_table.c.created_at >= self._cutoff()
        return sa.select(classes_table.c.teacher_hash).where(classes_table.c.code == code, live)

    def _require_teacher(self, conn: sa.Connection, code: str, key: str) -> None:
        stored = conn.execute(self._teacher_hash(code)).scalar()
        if stored is None:
            raise ClassError("class.unknown", code)
        if not hmac.compare_digest(stored, hash_key(key)):
            raise ClassError("class.bad_key", code)

    def close_class(self, code: str, key: str) -> None:
        """Close the class: its students' answers are no longer recorded. ClassError for a wrong key."""
        with self._connection(write=True, what="close a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            conn.execute(
                classes_table.update()
                .where(classes_table.c.code == code, classes_table.c.closed_at.is_(None))
                .values(closed_at=self.clock())
            )

    def reopen_class(self, code: str, key: str) -> None:
        """Open a closed class again. ClassError for a wrong key."""
        with self._connection(write=True, what="reopen a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            conn.execute(classes_table.update().where(classes_table.c.code == code).values(closed_at=None))

    def clear_class(self, code: str, key: str) -> int:
        """Delete every answer (and question) of the class; returns how many answers. ClassError for a wrong key."""
        with self._connection(write=True, what="clear a class", code=code) as conn:
            self._require_teacher(conn, code, key)
            deleted = conn.execute(answers_table.delete().where(answers_table.c.class_code == code)).rowcount
            conn.execute(questions_table.delete().where(questions_table.c.class_code == code))
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
                    sa.select(classes_table.c.closed_at, classes_table.c.code).where(
                        classes_table.c.code == new.class_code, classes_table.c.created_at >= self._cutoff()
                    )
                ).first()
                if closed is None:
                    raise ClassError("class.unknown", new.class_code)
                if closed.closed_at is not None:
                    raise ClassError("class.closed", new.class_code)
            self._insert_ignoring_duplicate(
                conn,
                questions_table,
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
                answers_table,
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

    def answers(
        self, class_code: str | None = None, student: str | None = None, question_id: str | None = None
    ) -> list[Answer]:
        """Recorded answers not expired, oldest first: of one class, of one student, of one question,
        or any of these together."""
        q = (
            sa.select(answers_table, questions_table.c.text)
            .join(
                questions_table,
                sa.and_(
                    questions_table.c.class_code == answers_table.c.class_code,
                    questions_table.c.question_id == answers_table.c.question_id,
                ),
            )
            .where(self._live_answers(self._cutoff()))
        )
        if class_code is not None:
            q = q.where(answers_table.c.class_code == class_code)
        if student is not None:
            q = q.where(answers_table.c.student == student)
        if question_id is not None:
            q = q.where(answers_table.c.question_id == question_id)
        with self._connection(what="read answers", code=class_code or "") as conn:
            rows = conn.execute(q.order_by(answers_table.c.answered_at, answers_table.c.id)).all()
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
                r.round,
            )
            for r in rows
        ]

    def count_answers(self, class_code: str) -> int:
        """How many answers (not expired) class ``class_code`` has."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="count answers", code=class_code) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count())
                    .select_from(answers_table)
                    .where(answers_table.c.class_code == class_code, live)
                ).scalar()
            )

    def summary(self, class_code: str) -> list[QuestionSummary]:
        """Per question of the class, in the order first answered: how many answered, how many
        rightly, and the spread of the answers (most frequent first); of a class vote, its first round;
        expired answers are not counted."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="summarise answers", code=class_code) as conn:
            questions = conn.execute(
                sa.select(questions_table)
                .where(questions_table.c.class_code == class_code)
                .order_by(questions_table.c.first_at)
            ).all()
            rows = conn.execute(
                sa.select(
                    answers_table.c.question_id,
                    answers_table.c.student,
                    answers_table.c.answer,
                    answers_table.c.is_right,
                    answers_table.c.answer_text,
                )
                .where(answers_table.c.class_code == class_code, live, answers_table.c.round == 1)  # round 2: period
                .order_by(answers_table.c.answered_at, answers_table.c.id)
            ).all()
        by_question: dict[str, list] = {}
        for row in rows:
            by_question.setdefault(row.question_id, []).append(row)
        summaries = []
        for q in (q for q in questions if q.question_id in by_question):
            given = by_question[q.question_id]
            tally = count_votes((r.student, 1, r.answer, r.is_right) for r in given).of(1)
            summaries.append(
                QuestionSummary(
                    question_id=q.question_id,
                    text=q.text,
                    question=json.loads(q.data),
                    answered=tally.answered,
                    right=tally.right,
                    spread=tally.spread,
                    labels={a: min(r.answer_text for r in given if r.answer == a) for a in tally.spread},
                    right_answers=frozenset(r.answer for r in given if r.is_right),
                )
            )
        return summaries

    def students(self, class_code: str) -> int:
        """How many students answered at least one question of the class (answers not expired)."""
        live = self._live_answers(self._cutoff())
        with self._connection(what="count students", code=class_code) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count(sa.distinct(answers_table.c.student))).where(
                        answers_table.c.class_code == class_code, live
                    )
                ).scalar()
            )

    def marked(self, class_code: str, since: float = 0.0) -> int:
        """How many students of the class marked positions before a flip (:data:`MARKS_PREFIX`) after
        ``since`` (s since the epoch; a flip's first prediction): counts only, never who."""
        live = self._live_answers(self._cutoff(), marks=True)
        with self._connection(what="count marks", code=class_code) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count(sa.distinct(answers_table.c.student))).where(
                        answers_table.c.class_code == class_code, live, answers_table.c.answered_at > since
                    )
                ).scalar()
            )

    # ------------------------------------------------------------------ a class period's state

    def write_class_state(
        self,
        code: str,
        key: str,
        text_of: Callable[[int, StoredState | None, float], str | None],
        if_unchanged: bool = False,
    ) -> int | None:
        """Keep class ``code``'s period state as its next version (the stored one plus 1, 1 for the
        first) and return that version. ``text_of(version, stored, now)`` gives the state's JSON text
        from the stored state (None before the first write) read in the same transaction and the
        store's clock, or None to write nothing (then None is returned). With ``if_unchanged`` the
        state is written only if no other write came since it was read (else None): two writers
        that race never both write. Raises ClassError for an unknown class or a wrong key,
        StoreError when the store cannot be reached."""
        try:
            with self._connection(write=True, what="write the class state", code=code) as conn:
                self._require_teacher(conn, code, key)
                where = class_state_table.c.class_code == code
                columns = (class_state_table.c.state, class_state_table.c.version, class_state_table.c.updated_at)
                row = conn.execute(sa.select(*columns).where(where)).first()
                stored = None if row is None else StoredState(row[0], int(row[1]), float(row[2]))
                now = self.clock()
                version = (stored.version if stored is not None else 0) + 1
                if (text := text_of(version, stored, now)) is None:
                    return None
                values = {"state": text, "version": version, "updated_at": now}
                if stored is None:
                    conn.execute(class_state_table.insert().values(class_code=code, **values))
                    return version
                if if_unchanged:
                    where = where & (class_state_table.c.version == stored.version)
                return (
                    version if conn.execute(class_state_table.update().where(where).values(**values)).rowcount else None
                )
        except sa_exc.IntegrityError:  # another writer inserted the class's first state in the same instant
            if if_unchanged:
                return None
            raise

    def touch_class_state(self, code: str, key: str, version: int) -> bool:
        """Mark class ``code``'s stored state as alive now (its ``updated_at``: the leading tab's
        heartbeat) if it is still ``version``; True when it was. Raises as :meth:`write_class_state`."""
        with self._connection(write=True, what="keep the lead", code=code) as conn:
            self._require_teacher(conn, code, key)
            same = (class_state_table.c.class_code == code) & (class_state_table.c.version == version)
            return bool(conn.execute(class_state_table.update().where(same).values(updated_at=self.clock())).rowcount)

    def class_state(self, code: str) -> str | None:
        """Class ``code``'s period state as its JSON text, or None before its teacher wrote one."""
        with self._connection() as conn:
            return conn.execute(
                sa.select(class_state_table.c.state).where(class_state_table.c.class_code == code)
            ).scalar()

    # ------------------------------------------------------------------ short links

    def _link_cutoffs(self) -> sa.ColumnElement[bool]:
        """Short links alive: opened within :data:`LINK_DAYS` days, and a resume link (holding a
        student's token, ``me=``) made within the days answers are kept (it opens nothing older)."""
        now = self.clock()
        resume = sa.or_(links_table.c.query.like("me=%"), links_table.c.query.like("%&me=%"))
        return sa.and_(
            links_table.c.used_at >= now - LINK_DAYS * 86400,
            sa.or_(~resume, links_table.c.created_at >= self._cutoff()),
        )

    def shorten(self, query: str) -> str:
        """The short code of ``query`` (cleaned, :func:`~tinygpt.classroom.store_text.clean_text`; the same
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
                    sa.select(links_table.c.code, self._link_cutoffs().label("alive")).where(
                        links_table.c.query_hash == digest
                    )
                ).first()
                if found is not None:
                    if not found.alive:  # expired, not purged yet: it lives again from now
                        conn.execute(
                            links_table.update()
                            .where(links_table.c.code == found.code)
                            .values(created_at=now, used_at=now)
                        )
                    return found.code
                code = random_code(LINK_ALPHABET, LINK_CODE_LEN)
                same = sa.select(links_table.c.code).where(sa.func.lower(links_table.c.code) == code.lower())
                if conn.execute(same).first() is not None:
                    continue
                values = {"code": code, "query_hash": digest, "query": query, "created_at": now, "used_at": now}
                if self._insert_ignoring_duplicate(conn, links_table, values):
                    return code
            # the code was taken, or another server stored this query meanwhile: look again
        raise StoreError("store.unreachable", "no free short link code", reason="no free short link code")

    def resolve(self, code: str) -> str | None:
        """The query string of short link ``code``, or None when there is none (or it has expired,
        :meth:`_link_cutoffs`). A code typed in another case (from a projector, on a phone) finds
        its link: no two codes differ only in case."""
        with self._connection(what="open a short link") as conn:
            columns = (links_table.c.code, links_table.c.query, links_table.c.used_at)
            alive = self._link_cutoffs()
            row = conn.execute(sa.select(*columns).where(links_table.c.code == code, alive)).first()
            if row is None:
                lower = sa.func.lower(links_table.c.code) == code.lower()
                rows = conn.execute(sa.select(*columns).where(lower, alive)).all()
                row = rows[0] if len(rows) == 1 else None
            now = self.clock()
            if row is not None and now - row.used_at > 86400:  # kept alive by use, written at most daily
                conn.execute(links_table.update().where(links_table.c.code == row.code).values(used_at=now))
        return None if row is None else row.query

    # ------------------------------------------------------------------ expiry

    def purge(self) -> dict[str, int]:
        """Delete answers older than ``keep_days`` days, classes created before that (with their
        questions and answers), questions no answer refers to any more, short links not opened for
        :data:`LINK_DAYS` days and resume links older than ``keep_days`` days. Returns how many rows
        of each kind were deleted."""
        cutoff = self._cutoff()
        with self._connection(what="delete expired records") as conn:
            old_classes = sa.select(classes_table.c.code).where(classes_table.c.created_at < cutoff)
            answers = conn.execute(
                answers_table.delete().where(
                    sa.or_(answers_table.c.answered_at < cutoff, answers_table.c.class_code.in_(old_classes))
                )
            ).rowcount
            used = sa.select(answers_table.c.class_code, answers_table.c.question_id).where(
                answers_table.c.class_code == questions_table.c.class_code,
                answers_table.c.question_id == questions_table.c.question_id,
            )
            questions = conn.execute(questions_table.delete().where(~sa.exists(used))).rowcount
            conn.execute(class_state_table.delete().where(class_state_table.c.class_code.in_(old_classes)))
            classes = conn.execute(classes_table.delete().where(classes_table.c.created_at < cutoff)).rowcount
            links = conn.execute(links_table.delete().where(~self._link_cutoffs())).rowcount
        return {"answers": answers, "questions": questions, "classes": classes, "links": links}
