"""The class store under what a class throws at it, on SQLite and PostgreSQL: short links typed in any
case, text from outside (NUL, lone surrogates, 10,000 characters, right-to-left) cleaned before the
database, one refused write that stays one student's error, expired records never shown, a deleted
SQLite folder and a read-only store said, and every failure logged without a key or a token."""

from __future__ import annotations

import logging
import shutil
import threading
import time

import pytest
import sqlalchemy as sa
import test_store
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_store import DAY, answer

from tinygpt.classroom import store as store_module
from tinygpt.classroom.store import (
    MAX_QUERY_CHARS,
    MAX_TEXT_CHARS,
    SCHEMA_VERSION,
    ClassError,
    NewAnswer,
    Store,
    StoreError,
    clean_nickname,
    database_url,
    new_student,
    read_link_code,
)
from tinygpt.classroom.store_schema import version_table
from tinygpt.classroom.store_text import clean_text, public_reason
from tinygpt.config import ConfigError

# the fixtures of test_store: a fresh store on SQLite and on PostgreSQL, and a clock moved by hand
store_url, clock, store = test_store.store_url, test_store.clock, test_store.store


def _codes(*codes: str):
    """A stand-in for the store's random code maker: link codes from ``codes`` in turn."""
    pending = list(codes)
    real = store_module.random_code

    def draw(alphabet: str, length: int) -> str:
        return pending.pop(0) if alphabet == store_module.LINK_ALPHABET and pending else real(alphabet, length)

    return draw


def test_a_short_link_typed_in_any_case_opens_its_lesson(store, monkeypatch):
    monkeypatch.setattr(store_module, "random_code", _codes("pqCKLSV"))
    assert store.shorten("lesson=1&pages=attention") == "pqCKLSV"
    for typed in ("pqcklsv", "PQCKLSV", "pqCKLSV", " PqCkLsV "):  # a phone's keyboard changes the case
        assert store.resolve(read_link_code(typed)) == "lesson=1&pages=attention"
    assert read_link_code("iiiiiii") == "iiiiiii" and read_link_code("OOOOOOO") == "OOOOOOO"
    for bad in ("pqckls0", "pqckls1", "pqckls", "pqckls\u0131"):  # 0 and 1 are no letters of a code
        with pytest.raises(ConfigError):
            read_link_code(bad)


def test_no_two_short_links_differ_only_in_case(store, monkeypatch):
    monkeypatch.setattr(store_module, "random_code", _codes("abcdefg", "ABCDEFG", "hjkmnpq"))
    assert store.shorten("lesson=1") == "abcdefg"
    assert store.shorten("lesson=2") == "hjkmnpq"  # ABCDEFG would read as abcdefg
    assert store.resolve("HJKMNPQ") == "lesson=2" and store.resolve("ABCDEFG") == "lesson=1"


def test_a_nickname_and_an_answer_with_nul_and_lone_surrogates_are_recorded_clean(store):
    code, _ = store.create_class("lesson=1")
    me = new_student()
    bad = NewAnswer(
        class_code=code,
        question_id="q1",
        question_text="Which\x00 key?\ud800",
        question={"prompt_key": "x", "choices": [["0", "\x00\udfff", ""]]},
        student=me,
        answer="0",
        answer_text="a\x00b\ud83d",
        right=True,
        nickname="Ana\x00\ud800 ",
    )
    assert store.record_answer(bad)
    (kept,) = store.answers(student=me)
    assert (kept.nickname, kept.answer_text, kept.question_text) == ("Ana\ufffd", "ab\ufffd", "Which key?\ufffd")
    assert store.summary(code)[0].question["choices"] == [["0", "\ufffd", ""]]
    assert store.record_answer(answer(code, new_student(), "1", False))  # the next student is not held up
    assert store.students(code) == 2


def test_one_write_the_database_refuses_is_that_writes_error_not_the_servers(store, monkeypatch):
    code, _ = store.create_class("lesson=1")
    monkeypatch.setattr(store_module, "clean_nickname", lambda raw: raw)  # let a bad value reach the database
    with pytest.raises(StoreError) as caught:
        store.record_answer(answer(code, new_student(), "0", True, nickname="a\x00\ud800b"))
    assert caught.value.key == "store.refused"
    start = time.monotonic()
    assert store.record_answer(answer(code, new_student(), "1", True, nickname="Bo"))  # at once, not after a back-off
    assert store.get_class(code) is not None and store.count_answers(code) == 1
    assert time.monotonic() - start < store_module.RETRY_SECONDS


# Text a student or a URL may give: NUL, lone surrogates, right-to-left marks and scripts, emoji, very long.
_nasty = st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d", "\u202e", "\u200f", "שלום", "مرحبا", "😀", "a", " "])
TEXTS = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=()), max_size=40),
    st.lists(_nasty, max_size=30).map("".join),
    st.tuples(_nasty, st.integers(9_000, 10_000)).map(lambda t: t[0] * t[1]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_any_text_reaches_the_store_clean_and_no_write_holds_up_another(store, text):
    clean = clean_text(text)
    assert clean_text(clean) == clean and "\x00" not in clean
    clean.encode("utf-8")  # no lone surrogate left: it encodes
    code, _ = store.create_class("lesson=1&t=" + text[:100])
    assert store.get_class(code).lesson == clean_text("lesson=1&t=" + text[:100])
    me = new_student()
    new = NewAnswer(code, "q-" + text[:20], text, {"t": text}, me, text, text, True, text)
    assert store.record_answer(new)
    (kept,) = store.answers(student=me)
    assert kept.nickname == clean_nickname(text)
    assert (kept.answer, kept.answer_text) == (clean_text(text, MAX_TEXT_CHARS),) * 2
    assert kept.question_id == clean_text("q-" + text[:20])
    if len(clean) <= MAX_QUERY_CHARS:
        assert store.resolve(store.shorten(text)) == clean
    else:
        with pytest.raises(ValueError):
            store.shorten(text)
    other = new_student()  # another session right after: recorded as ever
    assert store.record_answer(answer(code, other, "0", True))
    assert [a.answer for a in store.answers(student=other)] == ["0"]


def test_expired_answers_classes_and_resume_links_are_never_shown(store, clock):
    code, key = store.create_class("lesson=1")
    me = new_student()
    store.record_answer(answer(code, me, "0", True))
    store.record_answer(answer("", me, "1", False, question="q2"))
    lesson_link = store.shorten("lesson=1&pages=attention")
    resume_link = store.shorten(f"page=predict&lang=en&me={me}")
    clock.now += 29 * DAY
    assert store.resolve(resume_link) and store.count_answers(code) == 1
    clock.now += 2 * DAY  # 31 days: past the 30 the answers are kept, before any purge
    assert store.get_class(code) is None and not store.is_teacher(code, key)
    assert store.answers(student=me) == [] and store.answers(class_code=code) == []
    assert store.summary(code) == [] and store.count_answers(code) == 0 and store.students(code) == 0
    with pytest.raises(ClassError) as caught:
        store.close_class(code, key)
    assert caught.value.key == "class.unknown"
    with pytest.raises(ClassError):
        store.record_answer(answer(code, new_student(), "0", True))
    assert store.resolve(resume_link) is None  # it would open answers that are gone
    assert store.resolve(lesson_link) == "lesson=1&pages=attention"  # a lesson's link lives by use
    assert store.purge()["links"] == 1
    again = store.shorten(f"page=predict&lang=en&me={me}")  # made again: lives from now
    assert store.resolve(again) == f"page=predict&lang=en&me={me}"


def test_a_deleted_data_folder_is_said_and_logged_not_written_into(tmp_path, caplog):
    folder = tmp_path / "data"
    s = Store.from_environment({"TINYGPT_DATA_DIR": str(folder)})
    code, _ = s.create_class("lesson=1")
    shutil.rmtree(folder)
    caplog.set_level(logging.WARNING, logger="tinygpt.classroom.store")
    for call in (lambda: s.create_class("lesson=1"), lambda: s.record_answer(answer(code, new_student(), "0", True))):
        with pytest.raises(StoreError) as caught:
            call()
        assert caught.value.key == "store.gone"
    with pytest.raises(StoreError):
        s.check(write=True)
    assert any("deleted or replaced" in r.getMessage() and code in r.getMessage() for r in caplog.records)
    assert not folder.exists()  # nothing was written into a new file behind the teacher's back
    s.dispose()


def test_a_store_that_can_be_read_but_not_written_is_found(tmp_path):
    folder = tmp_path / "data"
    Store.from_environment({"TINYGPT_DATA_DIR": str(folder)}).check()
    read_only = Store(f"sqlite:///file:{folder / 'tinygpt.sqlite3'}?mode=ro&uri=true")
    read_only.check()
    with pytest.raises(StoreError) as caught:
        read_only.check(write=True)
    assert caught.value.key == "store.unreachable"
    read_only.dispose()


def test_failures_are_logged_with_the_class_code_and_never_name_a_key_a_token_or_the_host(caplog):
    from bench.cold_start import free_port

    port = free_port()
    nowhere = Store(database_url({"TINYGPT_DATABASE_URL": f"postgresql://tutor:secret@127.0.0.1:{port}/x"}))
    caplog.set_level(logging.WARNING, logger="tinygpt.classroom.store")
    me, key = new_student(), "Kx9" * 8
    with pytest.raises(StoreError) as caught:
        nowhere.record_answer(answer("K7M2QP", me, "0", True))
    shown = str(caught.value.params["reason"])
    assert "127.0.0.1" not in shown and str(port) not in shown and "secret" not in shown
    with pytest.raises(StoreError):
        nowhere.close_class("K7M2QP", key)
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "K7M2QP" in logged and "record an answer" in logged
    assert me not in logged and key not in logged and "secret" not in logged


def test_a_reason_a_person_reads_names_no_place():
    detail = (
        'connection failed: connection to server at "db.school.lan" (10.0.0.7), port 5432 failed: '
        "Connection refused\nIs the server running?"
    )
    reason = public_reason(detail)
    assert "Connection refused" in reason
    for place in ("db.school.lan", "10.0.0.7", "5432", "running"):
        assert place not in reason
    assert "/srv/tiny" not in public_reason("unable to open database file /srv/tiny/data/tinygpt.sqlite3")


def test_expired_records_are_deleted_by_a_timer_without_any_write(store, clock):
    import threading

    from tinygpt.classroom.store_upkeep import keep_purging

    code, _ = store.create_class("lesson=1")
    store.record_answer(answer(code, new_student(), "0", True))
    clock.now += 31 * DAY
    stop = threading.Event()
    thread = keep_purging(store, every_s=0.05, stop=stop)
    deadline = time.monotonic() + 10
    engine = store_module.sa.create_engine(store.url)
    try:
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                left = conn.execute(store_module.sa.text("SELECT count(*) FROM answers")).scalar()
            if left == 0:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(5)
        engine.dispose()
    assert left == 0 and not thread.is_alive()


def test_servers_opening_a_new_sqlite_file_at_the_same_moment_all_find_one_schema(tmp_path):
    """Four Store objects (as four servers' first requests) create the schema of a fresh SQLite file at
    once: each finds the tables and one version row, and none is left unusable."""
    for run in range(10):
        url = f"sqlite:///{tmp_path}/class-{run}.db"
        stores = [Store(url) for _ in range(4)]
        start = threading.Barrier(len(stores))
        versions: list[object] = []

        def open_schema(s: Store) -> None:
            start.wait()
            try:
                versions.append(s.schema_version())
            except Exception as exc:  # noqa: BLE001 - the test reports which store failed and how
                versions.append(exc)

        threads = [threading.Thread(target=open_schema, args=(s,)) for s in stores]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        try:
            assert versions == [SCHEMA_VERSION] * len(stores), versions
            with stores[0]._connection() as conn:
                assert conn.execute(sa.select(sa.func.count()).select_from(version_table)).scalar() == 1
        finally:
            for s in stores:
                s.dispose()
