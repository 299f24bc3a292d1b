"""The class store's tables, their version, and their creation on first use."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from tinygpt.classroom.store_migrate import migrate
from tinygpt.classroom.store_records import StoreError
from tinygpt.classroom.store_values import CLASS_CODE_LEN, LINK_CODE_LEN, MAX_NICKNAME, QUESTION_ID_LEN, STUDENT_LEN

#: The version of the schema this code writes and reads (2: answers have a round; the class period's state).
SCHEMA_VERSION = 2
metadata = sa.MetaData()
version_table = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))
classes_table = sa.Table(
    "classes",
    metadata,
    sa.Column("code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),
    sa.Column("lesson", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("closed_at", sa.Float, nullable=True),
)
questions_table = sa.Table(
    "questions",
    metadata,
    sa.Column("class_code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("question_id", sa.String(QUESTION_ID_LEN), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("first_at", sa.Float, nullable=False),
)
answers_table = sa.Table(
    "answers",
    metadata,
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
links_table = sa.Table(
    "short_links",
    metadata,
    sa.Column("code", sa.String(LINK_CODE_LEN), primary_key=True),
    sa.Column("query_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("query", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("used_at", sa.Float, nullable=False),
)
#: Trained models published for every server sharing the store (``tinygpt.training.model_library`` reads and
#: writes it): a checkpoint under the hash of the training code and its settings. Created beside the
#: versioned tables in every schema (a table of its own, which no older version reads).
models_table = sa.Table(
    "models",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),  # model_library.store_name(settings)
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("checkpoint", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("used_at", sa.Float, nullable=False),
)
#: The class period's current state, one row per class (``tinygpt.classroom.period`` reads and writes it);
#: ``updated_at``: the last write or heartbeat of the leading teacher tab (``period.hold_lead``).
class_state_table = sa.Table(
    "class_state",
    metadata,
    sa.Column("class_code", sa.String(CLASS_CODE_LEN), primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)
#: A number PostgreSQL's advisory lock uses while one server creates the schema.
_SCHEMA_LOCK = 2_025_250_001


def create_schema(engine: sa.Engine) -> None:
    """Create the tables on first use; bring an older schema to :data:`SCHEMA_VERSION`
    (:mod:`tinygpt.classroom.store_migrate`); refuse a database of a newer schema (StoreError
    ``store.schema_newer``)."""
    for attempt in range(2):  # another server may create the tables at the same moment
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _SCHEMA_LOCK})
                elif conn.dialect.name == "sqlite":  # the write lock before the first check: Python's sqlite3
                    conn.exec_driver_sql("BEGIN IMMEDIATE")  # otherwise runs each CREATE outside a transaction
                version_table.create(conn, checkfirst=True)
                found = conn.execute(sa.select(sa.func.max(version_table.c.version))).scalar()
                if found is None:
                    metadata.create_all(conn, checkfirst=True)
                    conn.execute(version_table.insert().values(version=SCHEMA_VERSION))
                elif found > SCHEMA_VERSION:
                    raise StoreError(
                        "store.schema_newer",
                        f"the class store's schema is version {found}; this app reads version {SCHEMA_VERSION}",
                        found=found,
                        supported=SCHEMA_VERSION,
                    )
                elif found < SCHEMA_VERSION:
                    migrate(conn, found, SCHEMA_VERSION, answers_table, class_state_table, version_table)
                models_table.create(conn, checkfirst=True)  # in this locked transaction: no race
            return
        except (sa_exc.IntegrityError, sa_exc.ProgrammingError, sa_exc.OperationalError):
            if attempt:
                raise
