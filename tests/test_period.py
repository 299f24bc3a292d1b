"""The class period's core (tinygpt.classroom.period): the state and its JSON, the state in the store, votes
with a round, their tallies, and the store's migration from the schema without rounds."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from urllib.parse import parse_qsl

import pytest
import sqlalchemy as sa
import torch

from tinygpt.classroom.period import (
    ClassState,
    question_data,
    question_from_data,
    read_state,
    state_from_json,
    suggest_discussion,
    tally,
    view_query,
    votes_blindly_on,
    votes_of,
    write_state,
)
from tinygpt.classroom.store import SCHEMA_VERSION, ClassError, NewAnswer, Store, database_url
from tinygpt.classroom.tally import count_votes
from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.explanations.answers import question_id
from tinygpt.explanations.exercises import argmax_key_question
from tinygpt.explanations.explain import trace_of
from tinygpt.training.links import decode_train, encode_train
from tinygpt.training.train import new_model


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return database_url({"TINYGPT_DATA_DIR": str(tmp_path / "data")})
    return database_url({"TINYGPT_DATABASE_URL": request.getfixturevalue("postgres_url")})


@pytest.fixture
def store(store_url):
    s = Store(store_url)
    yield s
    s.dispose()


@pytest.fixture(scope="module")
def question():
    # under the process's init lock: a model the app trains in the background meanwhile keeps its own weights
    model = new_model(GPTConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8), seed=0).eval()
    idx = torch.tensor([[0, 1, 2, 3]])
    trace = trace_of(model, idx, layer=0)
    return argmax_key_question(trace, head=0, query=3)


def vote(code: str, student: str, q, picked: str, rnd: int, identity: str | None = None) -> NewAnswer:
    """An answer to ``q`` in round ``rnd``, under ``identity`` (the exercise's id, ``question_id(q)``, by default)."""
    right = q.is_right(picked)
    qid = identity or question_id(q)
    return NewAnswer(code, qid, "prompt", question_data(q), student, picked, picked, right, None, rnd)


# ---------------------------------------------------------------- the state


def test_the_page_s_own_exercise_on_the_open_vote_waits_for_the_reveal(question):
    model = new_model(GPTConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8), seed=0).eval()
    other = argmax_key_question(trace_of(model, torch.tensor([[0, 1, 2, 3]]), layer=0), head=0, query=2)
    asked = ClassState(follow=True).with_question(question)
    assert votes_blindly_on(asked, question) and not votes_blindly_on(asked, other)
    assert not votes_blindly_on(replace(asked, revealed=True), question)  # revealed: the exercise may grade it
    assert not votes_blindly_on(replace(asked, closed=True), question)
    assert not votes_blindly_on(ClassState(follow=True), question)  # no vote open


def test_a_state_goes_to_json_and_back_unchanged(question):
    state = ClassState(
        page="predict",
        model="textbook",
        model_id="abc123",
        views={"attention": "step=mask&mask=0&tau=0.1&uniform=layer&layer=0&head=1", "predict": "prefix=%E4%BD%A0"},
        leader="tab1",
        open_controls=("attn_mask",),
        follow=True,
        version=7,
    ).with_question(question)
    back = state_from_json(state.to_json())
    assert back == state
    assert back.round == 1 and not back.revealed and back.question_id == f"vote:7:{question_id(question)}"
    assert question_from_data(back.question) == question


@pytest.mark.parametrize(
    "raw",
    [None, "", "not json", "[1, 2]", '{"page": "nowhere", "tau": "hot", "round": 9, "follow": "yes"}'],
)
def test_anything_else_reads_as_the_default_state(raw):
    assert state_from_json(raw) == ClassState()


def test_invalid_fields_take_their_defaults_and_valid_ones_stay():
    raw = json.dumps(
        {
            "page": "predict",
            "step": "nine",
            "tau": float("1e9"),
            "text": "x" * 999,
            "question": {"kind": "no such kind"},
            "question_id": "abc",
            "round": 2,
            "revealed": True,
            "open_controls": ["attn_mask", 3],
            "version": -1,
        }
    )
    state = state_from_json(raw)
    old = dict(parse_qsl(state.view("attention")))  # the old fields as a view: the page's rows read (or refuse) them
    assert state.page == "predict" and old["step"] == "nine" and old["tau"] == "1e+09" and len(old["text"]) == 200
    assert state.question is None and state.question_id == "" and state.round == 0 and not state.revealed
    assert state.open_controls == ("attn_mask",) and state.version == 0


OWN_GPT = GPTConfig(d_model=16, n_heads=2, n_layers=1, d_ff=32)
OWN_TRAIN = encode_train("我爱你，你爱我。", OWN_GPT, TrainConfig(epochs=40))


def test_a_state_with_the_teachers_own_model_goes_to_json_and_back():
    state = ClassState(page="predict", model="own", train=OWN_TRAIN, follow=True, version=3)
    back = state_from_json(state.to_json())
    assert back == state and back.model == "own" and back.train == OWN_TRAIN
    text, gpt_cfg, train_cfg = decode_train(back.train)
    assert (text, gpt_cfg.d_model, gpt_cfg.n_layers, train_cfg.epochs) == ("我爱你，你爱我。", 16, 1, 40)
    assert view_query(back, "en") == [("model", "own"), ("train", OWN_TRAIN), ("lang", "en")]


def test_a_state_without_the_train_field_still_reads_and_an_own_model_needs_valid_settings():
    old = json.dumps({"page": "attention", "step": "mask", "model": "textbook", "follow": True, "version": 4})
    state = state_from_json(old)
    assert (state.model, state.train, state.follow, state.version) == ("textbook", "", True, 4)
    assert state.view("attention") == "step=mask"
    for train in (None, "", "v9;text=你好", "v1;d_model=7;n_heads=2;text=你好", 5):  # no model the link can name
        state = state_from_json(json.dumps({"model": "own", "train": train, "page": "predict"}))
        assert (state.model, state.train, state.page) == ("context", "", "predict")
    example = state_from_json(json.dumps({"model": "context", "train": OWN_TRAIN}))
    assert (example.model, example.train) == ("context", "")  # settings only beside an own model


def test_the_students_view_as_a_link_carries_the_pages_own_parameters_and_no_class():
    view = "step=mask&mask=0&tau=0.5&text=%E4%BD%A0%E5%A5%BD"
    attention = ClassState(page="attention", model="textbook", views={"attention": view})
    assert view_query(attention, "zh") == [
        ("model", "textbook"),
        ("step", "mask"),
        ("mask", "0"),
        ("tau", "0.5"),
        ("text", "你好"),
        ("lang", "zh"),
    ]
    predict = ClassState(page="predict", views={"predict": "prefix=%E4%BD%A0"}, follow=True)
    assert view_query(predict, "en") == [("model", "context"), ("prefix", "你"), ("lang", "en")]


def test_the_discussion_band_is_thirty_to_seventy_percent():
    assert [suggest_discussion(x) for x in (0.0, 0.29, 0.3, 0.5, 0.7, 0.71, 1.0)] == [
        False,
        False,
        True,
        True,
        True,
        False,
        False,
    ]


# ---------------------------------------------------------------- the store


def test_the_teacher_writes_the_state_and_every_write_adds_a_version(store):
    code, key = store.create_class("lesson=1")
    assert read_state(store, code) is None
    first = write_state(store, code, key, ClassState(follow=True, views={"attention": "step=mask"}))
    second = write_state(store, code, key, ClassState(follow=False, views={"attention": "step=scale"}))
    assert (first.version, second.version) == (1, 2)
    assert read_state(store, code) == second
    with pytest.raises(ClassError) as wrong:
        write_state(store, code, "x" * 24, ClassState())
    assert wrong.value.key == "class.bad_key"
    assert read_state(store, code) == second


def test_a_revealed_vote_stays_revealed_whichever_state_is_written_next_and_no_other_is(store, question):
    code, key = store.create_class("lesson=1")
    asked = write_state(store, code, key, ClassState(version=3).with_question(question))
    assert not asked.verdict_shown(asked.question_id) and asked.all_shown() == frozenset()
    assert asked.verdict_shown("ex:123")  # an exercise's answer is never blind
    round2 = write_state(store, code, key, replace(asked, round=2))
    assert read_state(store, code).shown == () and not round2.verdict_shown(asked.question_id)
    write_state(store, code, key, replace(round2, revealed=True))
    assert read_state(store, code).shown == (asked.question_id,)
    # a tab that never saw the reveal writes a state without it
    other_tab = ClassState().with_view("attention", "step=mask")
    after = write_state(store, code, key, other_tab.with_question(question))
    assert after.shown == (asked.question_id,) and after.question_id != asked.question_id
    assert after.verdict_shown(asked.question_id) and not after.verdict_shown(after.question_id)
    assert state_from_json(after.to_json()) == after
    bad = json.loads(after.to_json()) | {"shown": ["ex:1", 5, asked.question_id], "check": "later"}
    assert state_from_json(json.dumps(bad)).shown == (asked.question_id,)
    assert state_from_json(json.dumps(bad)).check == ""


def test_a_student_votes_once_per_round_and_the_tally_compares_the_rounds(store, question):
    code, _ = store.create_class("lesson=1")
    right = sorted(question.answers)[0]
    wrong = next(c.id for c in question.choices if c.id not in question.answers)
    students = [f"{n:016x}" for n in range(5)]
    # round 1: two right, three wrong; round 2: four right (two changed to it), one wrong (one changed away)
    first = [right, right, wrong, wrong, wrong]
    second = [right, wrong, right, right, wrong]
    for s, a in zip(students, first):
        assert store.record_answer(vote(code, s, question, a, 1))
    assert not store.record_answer(vote(code, students[0], question, wrong, 1))  # a second vote in round 1
    for s, a in zip(students[:4], second[:4]):
        assert store.record_answer(vote(code, s, question, a, 2))
    got = tally(store, code, question_id(question))
    assert (got.of(1).answered, got.of(1).right) == (5, 2)
    assert got.of(1).spread == {wrong: 3, right: 2}
    assert (got.of(2).answered, got.of(2).right) == (4, 3)
    assert (got.to_right, got.to_wrong, got.both) == (2, 1, 4)
    assert got.of(3).answered == 0
    assert votes_of(store, code, question_id(question), students[0]) == {1: right, 2: right}
    assert votes_of(store, code, question_id(question), students[4]) == {1: wrong}
    assert votes_of(store, code, "another question", students[0]) == {}


def test_a_vote_counts_only_the_answers_given_after_it_opened(store, question):
    code, key = store.create_class("lesson=1")
    right = sorted(question.answers)[0]
    wrong = next(c.id for c in question.choices if c.id not in question.answers)
    students = [f"{n:016x}" for n in range(3)]
    for s in students[:2]:  # answered on their own page, as an exercise, before the teacher asked it
        assert store.record_answer(vote(code, s, question, wrong, 1))
    opened = write_state(store, code, key, ClassState(follow=True).with_question(question))
    assert opened.question_id != question_id(question)
    assert tally(store, code, opened.question_id).of(1).answered == 0  # round 1 starts empty
    assert votes_of(store, code, opened.question_id, students[0]) == {}  # the student can still vote
    for s in students:
        assert store.record_answer(vote(code, s, question, right, 1, opened.question_id))
    first = tally(store, code, opened.question_id).of(1)
    assert (first.answered, first.right, first.spread) == (3, 3, {right: 3})
    # the same question asked again later is a new vote: its round 1 starts empty too
    closed = write_state(store, code, key, opened.without_question())
    again = write_state(store, code, key, closed.with_question(question))
    assert again.question_id not in (opened.question_id, question_id(question))
    assert tally(store, code, again.question_id).of(1).answered == 0
    exercise = tally(store, code, question_id(question)).of(1)  # the exercise's answers are kept as they were
    assert (exercise.answered, exercise.right) == (2, 0)


def test_count_votes_from_rows():
    rows = [("a", 1, "0", False), ("a", 2, "1", True), ("b", 1, "1", True), ("b", 2, "1", True), ("c", 2, "0", False)]
    got = count_votes(rows)
    assert got.of(1).spread == {"0": 1, "1": 1} and got.of(2).spread == {"1": 2, "0": 1}
    assert (got.to_right, got.to_wrong, got.both) == (1, 0, 2)


V1_TABLES = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE classes (code VARCHAR(6) PRIMARY KEY, teacher_hash VARCHAR(64) NOT NULL, lesson TEXT NOT NULL, "
    "created_at FLOAT NOT NULL, closed_at FLOAT)",
    "CREATE TABLE questions (class_code VARCHAR(6) NOT NULL, question_id VARCHAR(64) NOT NULL, text TEXT NOT NULL, "
    "data TEXT NOT NULL, first_at FLOAT NOT NULL, PRIMARY KEY (class_code, question_id))",
    "CREATE TABLE answers (id {serial} PRIMARY KEY, class_code VARCHAR(6) NOT NULL, question_id VARCHAR(64) NOT NULL, "
    "student VARCHAR(16) NOT NULL, nickname VARCHAR(24), answer TEXT NOT NULL, answer_text TEXT NOT NULL, "
    "is_right BOOLEAN NOT NULL, answered_at FLOAT NOT NULL, "
    "CONSTRAINT one_answer_per_student UNIQUE (class_code, question_id, student))",
    "CREATE INDEX answers_by_student ON answers (student)",
    "CREATE INDEX answers_by_time ON answers (answered_at)",
    "CREATE TABLE short_links (code VARCHAR(7) PRIMARY KEY, query_hash VARCHAR(64) NOT NULL UNIQUE, "
    "query TEXT NOT NULL, created_at FLOAT NOT NULL, used_at FLOAT NOT NULL)",
    "INSERT INTO schema_version (version) VALUES (1)",
    "INSERT INTO classes VALUES ('K7M2QP', 'h', 'lesson=1', {now}, NULL)",
    "INSERT INTO questions VALUES ('K7M2QP', 'q1', 'Which?', '{{}}', {now})",
    "INSERT INTO answers (class_code, question_id, student, nickname, answer, answer_text, is_right, answered_at) "
    "VALUES ('K7M2QP', 'q1', '00000000000000aa', NULL, '1', '1 好', {true}, {now})",
)


def test_a_store_of_the_schema_without_rounds_is_migrated_and_keeps_its_answers(store_url, tmp_path):
    engine = sa.create_engine(store_url)
    serial, true = ("SERIAL", "TRUE") if engine.dialect.name == "postgresql" else ("INTEGER", "1")
    if engine.dialect.name == "sqlite":
        (tmp_path / "data").mkdir(exist_ok=True)
    with engine.begin() as conn:
        for statement in V1_TABLES:
            conn.execute(sa.text(statement.format(serial=serial, true=true, now=time.time())))
    engine.dispose()
    store = Store(store_url)
    try:
        assert store.schema_version() == SCHEMA_VERSION == 2
        kept = store.answers(class_code="K7M2QP")
        assert [(a.student, a.answer, a.right) for a in kept] == [("00000000000000aa", "1", True)]
        again = NewAnswer("K7M2QP", "q1", "Which?", {}, "00000000000000aa", "0", "0 你", False)
        assert not store.record_answer(again)  # round 1 had its answer already
        assert store.record_answer(NewAnswer(**{**again.__dict__, "round": 2}))
        assert tally(store, "K7M2QP", "q1").of(2).answered == 1
        assert tally(store, "K7M2QP", "q1").of(1).right == 1
        assert read_state(store, "K7M2QP") is None  # the state's table exists
        with store._connection() as conn:
            versions = conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all()
        assert versions == [2]
    finally:
        store.dispose()


def test_a_class_starts_where_its_lesson_opens_until_the_teacher_leads_elsewhere():
    from tinygpt.classroom.period import starting_state

    start = starting_state("lesson=1&pages=predict,attention&step=scores&model=textbook&lang=en")
    assert (start.page, start.view("attention"), start.model) == (ClassState().page, "step=scores", "textbook")
    assert not start.follow and start.question is None and start.version == 0
    odd = starting_state("lesson=1&pages=train&model=mine")  # nothing a class leads: the defaults
    assert (odd.page, odd.views, odd.model) == (ClassState().page, ClassState().views, ClassState().model)
    made = starting_state("lesson=1&step=mask&layer=0&head=1&mid=abc&model=context")  # a complete view and its model
    assert made.model_id == "abc" and dict(parse_qsl(made.view("attention"))) == {
        "step": "mask",
        "layer": "0",
        "head": "1",
    }
