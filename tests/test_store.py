"""The class store (tinygpt.classroom.store) on SQLite and PostgreSQL: schema, classes, answers, short links,
expiry, errors."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
import sqlalchemy as sa

from tinygpt.classroom.store import (
    CLASS_ALPHABET,
    CLASS_CODE_LEN,
    LINK_ALPHABET,
    LINK_CODE_LEN,
    RETRY_SECONDS,
    SCHEMA_VERSION,
    ClassError,
    NewAnswer,
    Store,
    StoreError,
    answer_days,
    clean_nickname,
    database_url,
    new_student,
    read_class_code,
    read_link_code,
    read_student,
    read_teacher_key,
)
from tinygpt.config import ConfigError

DAY = 86400.0


class Clock:
    """A clock the test moves by hand (Unix seconds)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    """A fresh, empty store's URL: a SQLite file in a temporary folder, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return database_url({"TINYGPT_DATA_DIR": str(tmp_path / "data")})
    return database_url({"TINYGPT_DATABASE_URL": request.getfixturevalue("postgres_url")})


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(store_url, clock):
    s = Store(store_url, keep_days=30, clock=clock)
    yield s
    s.dispose()


def answer(code: str, student: str, picked: str, right: bool, question: str = "q1", nickname: str | None = None):
    return NewAnswer(
        class_code=code,
        question_id=question,
        question_text=f"Which key does row 3 attend to most? ({question})",
        question={"prompt_key": "ex.argmax_key.prompt", "choices": [["0", "0 你", ""], ["1", "1 好", ""]]},
        student=student,
        answer=picked,
        answer_text=f"{picked} 你",
        right=right,
        nickname=nickname,
    )


def test_the_schema_is_created_on_first_use_and_versioned(store, store_url):
    assert store.schema_version() == SCHEMA_VERSION
    engine = sa.create_engine(store_url)
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
        versions = conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all()
    engine.dispose()
    assert {"schema_version", "classes", "answers", "questions", "short_links"} <= tables
    assert versions == [SCHEMA_VERSION]
    # a second server on the same database finds the schema and adds no second version row
    other = Store(store_url)
    assert other.schema_version() == SCHEMA_VERSION
    other.dispose()


def test_a_newer_schema_is_refused_with_its_version(store, store_url):
    store.check()
    engine = sa.create_engine(store_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 99"))
    engine.dispose()
    newer = Store(store_url)
    with pytest.raises(StoreError) as caught:
        newer.create_class("lesson=1")
    assert caught.value.key == "store.schema_newer"
    assert caught.value.params == {"found": 99, "supported": SCHEMA_VERSION}
    newer.dispose()


def test_a_class_has_a_short_code_and_only_the_teachers_key_opens_it(store, clock):
    code, key = store.create_class("lesson=1&pages=attention&guess=1")
    assert len(code) == CLASS_CODE_LEN and set(code) <= set(CLASS_ALPHABET)
    assert len(key) == 24 and key.isascii()
    info = store.get_class(code)
    assert (info.code, info.lesson, info.created, info.closed) == (
        code,
        "lesson=1&pages=attention&guess=1",
        clock.now,
        None,
    )
    assert store.is_teacher(code, key)
    forged = ("A" if key[0] != "A" else "B") + key[1:]
    assert not store.is_teacher(code, forged)
    assert not store.is_teacher("ZZZZZZ", key)
    assert store.get_class("ZZZZZZ") is None
    with pytest.raises(ClassError) as caught:
        store.close_class(code, forged)
    assert caught.value.key == "class.bad_key"
    assert store.get_class(code).is_open
    # the key itself is not stored, only its hash
    engine = sa.create_engine(store.url)
    with engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT teacher_hash FROM classes")).scalar()
    engine.dispose()
    assert stored != key and len(stored) == 64


def test_answers_are_anonymous_and_the_first_answer_of_a_student_counts(store):
    code, key = store.create_class("lesson=1")
    ann, bob, cat = new_student(), new_student(), new_student()
    assert store.record_answer(answer(code, ann, "0", True))
    assert not store.record_answer(answer(code, ann, "1", False))  # answered again after a reload: ignored
    assert store.record_answer(answer(code, bob, "1", False, nickname="  Bob   the  builder "))
    assert store.record_answer(answer(code, cat, "0", True))
    assert store.record_answer(answer(code, cat, "1", True, question="q2"))
    rows = store.answers(code)
    assert [(r.student, r.answer, r.right, r.nickname) for r in rows] == [
        (ann, "0", True, None),
        (bob, "1", False, "Bob the builder"),
        (cat, "0", True, None),
        (cat, "1", True, None),
    ]
    q1, q2 = store.summary(code)
    assert (q1.question_id, q1.answered, q1.right, q1.spread, q1.labels) == (
        "q1",
        3,
        2,
        {"0": 2, "1": 1},
        {"0": "0 你", "1": "1 你"},
    )
    assert q1.share_right == pytest.approx(2 / 3)
    assert q1.right_answers == frozenset({"0"})
    assert q1.question["prompt_key"] == "ex.argmax_key.prompt"
    assert q1.text.startswith("Which key")
    assert (q2.answered, q2.right, q2.spread) == (1, 1, {"1": 1})
    assert store.students(code) == 3 and store.count_answers(code) == 4
    # what a row holds: no name, address or browser, only the anonymous token and a typed nickname
    engine = sa.create_engine(store.url)
    with engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("answers")}
    engine.dispose()
    assert columns == {
        "id",
        "class_code",
        "question_id",
        "student",
        "nickname",
        "answer",
        "answer_text",
        "is_right",
        "answered_at",
        "round",
    }
    assert [r.answer for r in store.answers(student=cat)] == ["0", "1"]


def test_a_student_in_no_class_keeps_answers_too(store):
    me = new_student()
    assert store.record_answer(answer("", me, "1", False))
    assert [(r.class_code, r.answer, r.right) for r in store.answers(student=me)] == [("", "1", False)]


def test_unknown_and_closed_classes_refuse_answers(store):
    with pytest.raises(ClassError) as caught:
        store.record_answer(answer("ZZZZZZ", new_student(), "0", True))
    assert (caught.value.key, caught.value.code) == ("class.unknown", "ZZZZZZ")
    code, key = store.create_class("lesson=1")
    store.close_class(code, key)
    assert not store.get_class(code).is_open
    with pytest.raises(ClassError) as caught:
        store.record_answer(answer(code, new_student(), "0", True))
    assert caught.value.key == "class.closed"
    assert store.count_answers(code) == 0
    store.reopen_class(code, key)
    assert store.record_answer(answer(code, new_student(), "0", True))


def test_clearing_a_class_deletes_its_answers_only(store):
    code, key = store.create_class("lesson=1")
    other, _ = store.create_class("lesson=1")
    for _ in range(3):
        store.record_answer(answer(code, new_student(), "0", True))
    store.record_answer(answer(other, new_student(), "1", False))
    assert store.clear_class(code, key) == 3
    assert store.summary(code) == [] and store.count_answers(code) == 0
    assert store.count_answers(other) == 1
    assert store.get_class(code).is_open


def test_short_links_are_ascii_codes_for_a_query(store):
    query = "lesson=1&pages=attention&show=attn_mask&text=%E6%88%91%E7%88%B1%E4%BD%A0&class=K7M2QP"
    code = store.shorten(query)
    assert len(code) == LINK_CODE_LEN and set(code) <= set(LINK_ALPHABET)
    assert store.shorten(query) == code  # the same lesson, the same link
    assert store.resolve(code) == query
    assert store.shorten(query + "&step=softmax") != code
    assert store.resolve("abcdefg") is None
    assert store.resolve(code.swapcase()) == query  # typed from a projector in the wrong case
    other = next(c for c in (store.shorten(f"lesson=1&n={n}") for n in range(99)) if c.lower() != code.lower())
    assert store.resolve(other.upper()) == store.resolve(other)
    with pytest.raises(ValueError):
        store.shorten("x" * 9000)


def test_old_answers_classes_and_unused_links_are_deleted(store, clock):
    old_code, _ = store.create_class("lesson=1")
    store.record_answer(answer(old_code, new_student(), "0", True))
    link = store.shorten("lesson=1&old=1")
    clock.now += 20 * DAY
    new_code, _ = store.create_class("lesson=1")
    fresh = new_student()
    store.record_answer(answer(new_code, fresh, "1", True))
    store.record_answer(answer("", fresh, "1", True))
    clock.now += 11 * DAY  # the first class and its answer are 31 days old, the second 11 days
    assert store.purge() == {"answers": 1, "questions": 1, "classes": 1, "links": 0}
    assert store.get_class(old_code) is None and store.count_answers(old_code) == 0
    assert store.count_answers(new_code) == 1 and len(store.answers(student=fresh)) == 2
    assert store.resolve(link) == "lesson=1&old=1"
    clock.now += 400 * DAY
    assert store.purge()["links"] == 1
    assert store.resolve(link) is None


def test_answers_from_many_threads_are_all_recorded(store):
    code, _ = store.create_class("lesson=1")
    students = [new_student() for _ in range(12)]
    errors: list[Exception] = []

    def answer_all(me: str) -> None:
        try:
            for q in range(5):
                store.record_answer(answer(code, me, str(q % 2), q % 2 == 0, question=f"q{q}"))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=answer_all, args=(me,)) for me in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count_answers(code) == 60
    assert [s.answered for s in store.summary(code)] == [12] * 5


def test_two_servers_share_one_postgresql_database(postgres_url):
    url = database_url({"TINYGPT_DATABASE_URL": postgres_url})
    first, second = Store(url), Store(url)
    code, key = first.create_class("lesson=1")
    second.record_answer(answer(code, new_student(), "1", False))
    assert first.summary(code)[0].spread == {"1": 1}
    assert second.is_teacher(code, key)
    first.dispose()
    second.dispose()


def test_sqlite_is_one_file_in_wal_mode_in_the_configured_folder(tmp_path):
    folder = tmp_path / "class data"
    store = Store.from_environment({"TINYGPT_DATA_DIR": str(folder)})
    store.create_class("lesson=1")
    store.dispose()
    assert (folder / "tinygpt.sqlite3").is_file()
    with sqlite3.connect(folder / "tinygpt.sqlite3") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_store_that_cannot_be_reached_raises_one_error_type(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    unwritable = Store.from_environment({"TINYGPT_DATA_DIR": str(blocker / "data")})
    with pytest.raises(StoreError) as caught:
        unwritable.create_class("lesson=1")
    assert caught.value.key == "store.unreachable" and caught.value.params["reason"]
    from bench.cold_start import free_port

    nowhere = Store(database_url({"TINYGPT_DATABASE_URL": f"postgresql://postgres:secret@127.0.0.1:{free_port()}/x"}))
    with pytest.raises(StoreError) as caught:
        nowhere.record_answer(answer("", new_student(), "0", True))
    assert caught.value.key == "store.unreachable"
    assert "secret" not in str(caught.value)
    start = time.monotonic()  # within RETRY_SECONDS the store does not wait for the database again
    with pytest.raises(StoreError):
        nowhere.summary("ABCDEF")
    assert time.monotonic() - start < RETRY_SECONDS / 5
    with pytest.raises(StoreError) as caught:
        Store(database_url({"TINYGPT_DATABASE_URL": "not a url"})).check()
    assert caught.value.key == "store.bad_url"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_store_that_cannot_be_used_is_said_to_people_without_its_host_port_or_password(lang):
    from tinygpt.i18n import t

    for url in ("postgresql://u:secret@db.school.example:5433/c", "postgresql://u:secret@db.school.example:99x/c"):
        with pytest.raises(StoreError) as caught:
            Store(database_url({"TINYGPT_DATABASE_URL": url})).check()
        shown = t(caught.value.key, lang, **caught.value.params)
        assert caught.value.key.startswith("store.") and shown
        assert not any(part in shown for part in ("db.school.example", "5433", "99x", "secret")), shown


def test_the_environment_chooses_the_database_and_the_days_kept(tmp_path):
    assert database_url({"TINYGPT_DATABASE_URL": "postgresql://u:p@db:5432/c"}) == "postgresql+psycopg://u:p@db:5432/c"
    assert database_url({"TINYGPT_DATABASE_URL": "postgres://db/c"}) == "postgresql+psycopg://db/c"
    assert database_url({"TINYGPT_DATA_DIR": str(tmp_path)}) == f"sqlite:///{tmp_path}/tinygpt.sqlite3"
    assert answer_days({}) == 30 and answer_days({"TINYGPT_ANSWER_DAYS": " 7 "}) == 7
    for bad in ("0", "７", "1e3", "99999", "-1"):
        with pytest.raises(ConfigError) as caught:
            answer_days({"TINYGPT_ANSWER_DAYS": bad})
        assert caught.value.field == "TINYGPT_ANSWER_DAYS"


def test_codes_from_a_url_are_read_strictly():
    assert read_class_code(" k7m2qp ") == "K7M2QP"
    assert read_link_code("Ab3xYz7") == "Ab3xYz7"
    assert read_student("0123456789ABCDEF") == "0123456789abcdef"
    assert read_teacher_key("A" * 23 + "-") == "A" * 23 + "-"
    for reader, bad in (
        (read_class_code, "K7M2Q"),  # too short
        (read_class_code, "K7M2Q0"),  # 0 is not in the alphabet
        (read_class_code, "Ｋ7M2QP"),  # full-width letter
        (read_link_code, "Ab3xYz"),
        (read_link_code, "Ab3xYz\u200b"),
        (read_student, "x" * 16),
        (read_teacher_key, "A" * 23 + "/"),
    ):
        with pytest.raises(ConfigError) as caught:
            reader(bad)
        assert caught.value.key == ("class_code" if reader is read_class_code else "code")  # its own wording
    with pytest.raises(ConfigError) as caught:
        read_link_code("Ab3xYz\u200b")
    assert "U+200B" in caught.value.value


def test_a_nickname_keeps_no_direction_override_or_other_invisible_formatting():
    assert clean_nickname("\u202eabc\u200d😀<b>x</b>") == "abc😀<b>x</b>"
    assert clean_nickname("\u2066\u202e\u200b") is None
