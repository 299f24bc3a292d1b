"""The class store's schema from an older version to the current one (``tinygpt.classroom.store`` calls
:func:`migrate` while it holds the schema's lock, in one transaction)."""

from __future__ import annotations

import sqlalchemy as sa


def migrate(
    conn: sa.Connection, found: int, current: int, answers: sa.Table, class_state: sa.Table, versions: sa.Table
) -> None:
    """Bring a schema of version ``found`` to version ``current`` in the caller's transaction.

    1 -> 2: ``answers`` get a ``round`` (the answers kept are round 1) and one answer per student,
    question and round; the table ``class_state`` is created. SQLite cannot change a table's
    constraint, so there the answers are copied into a new table of the current layout.
    """
    if found < 2:
        if conn.dialect.name == "sqlite":
            for index in answers.indexes:
                conn.execute(sa.text(f"DROP INDEX IF EXISTS {index.name}"))
            conn.execute(sa.text("ALTER TABLE answers RENAME TO answers_v1"))
            answers.create(conn)
            columns = ", ".join(c.name for c in answers.columns if c.name != "round")
            conn.execute(sa.text(f"INSERT INTO answers ({columns}, round) SELECT {columns}, 1 FROM answers_v1"))
            conn.execute(sa.text("DROP TABLE answers_v1"))
        else:
            conn.execute(sa.text("ALTER TABLE answers ADD COLUMN round INTEGER NOT NULL DEFAULT 1"))
            conn.execute(sa.text("ALTER TABLE answers DROP CONSTRAINT one_answer_per_student"))
            conn.execute(
                sa.text(
                    "ALTER TABLE answers ADD CONSTRAINT one_answer_per_student "
                    "UNIQUE (class_code, question_id, student, round)"
                )
            )
        class_state.create(conn, checkfirst=True)
    conn.execute(versions.delete())
    conn.execute(versions.insert().values(version=current))
