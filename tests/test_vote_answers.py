"""A class vote in the student's "my answers" (AppTest): each round at once, with its round; blind until
the teacher reveals it (no score, no "right" in "my answers", its downloads or the banner after a
reload), then counted in the score by its latest round."""

from __future__ import annotations

from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.class_links import MyAnswer, answers_markdown
from tinygpt.classroom.period import question_from_data, read_state
from tinygpt.i18n import t
from tinygpt.ui.classwork.my_answers import listed_question
from tinygpt.ui.frame.controls import SCORE
from tinygpt.ui.frame.student_state import class_session, is_hidden
from tinygpt.ui.teacher.lead_question import L_ROW


def mine(at: AppTest) -> list[tuple[str, int, bool]]:
    entries = sorted(class_session(at.session_state).answers.values(), key=lambda e: (e.at, e.round))
    return [(e.question_id, e.round, e.right) for e in entries]


def markdown(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def welcome_back(code: str, me: str) -> list[str]:
    """The messages a resume link (or a reload with the cookie) opens the start page with."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": "en", "class": code, "me": me})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return [i.value for i in at.info]


def downloaded_verdicts(at: AppTest) -> list[str]:
    """The "Right" column of the student's "my answers" as its Markdown download holds it."""
    entries = sorted(class_session(at.session_state).answers.values(), key=lambda e: (e.at, e.round))
    shown = class_session(at.session_state).shown
    rows = [
        MyAnswer(e.question_id, e.question_text, e.answer_text, None if is_hidden(e, shown) else e.right, e.at)
        for e in entries
    ]
    text = answers_markdown(rows, "t", "s", ["a"] * 5, t("mine.yes", "en"), t("mine.no", "en"), t("mine.hidden", "en"))
    return [line.rsplit("|", 2)[1].strip() for line in text.splitlines()[6:]]


def test_each_vote_is_in_my_answers_at_once_with_its_round_and_counts_in_the_score(store):
    code, key = store.create_class("lesson=1&pages=attention&model=context&lang=en")
    teacher = open_link("teacher", **{"class": code, "key": key})
    teacher.button(key="lead_follow").click().run()
    teacher.selectbox(key=L_ROW).set_value(5).run()
    teacher.button(key="lead_ask").click().run()
    state = read_state(store, code)
    qid, question = state.question_id, question_from_data(state.question)
    right = sorted(question.answers)[0]
    wrong = next(c.id for c in question.choices if c.id not in question.answers)

    student = open_link("attention", **{"class": code})
    student.button_group(key=f"period_vote_{qid}_1").set_value(wrong).run()
    assert not student.exception
    assert mine(student) == [(qid, 1, False)]  # at once, in this session
    assert student.session_state[SCORE] == (0, 0)  # blind: not counted before the reveal
    blind = t("ex.score", "en", right=0, asked=0) + " " + t("mine.hidden_note", "en", n=1)
    assert blind in markdown(student)
    assert not any(t("ex.score", "en", right=0, asked=1) in m for m in markdown(student))
    assert downloaded_verdicts(student) == [t("mine.hidden", "en")]
    assert student.button(key="mine_vote_resume")  # "my answers" beside the vote (its fragment keeps the sidebar)
    entry = next(iter(class_session(student.session_state).answers.values()))
    for lang in ("en", "zh"):
        assert t("mine.vote_round", lang, question=entry.question_text, round=1).startswith(entry.question_text)
    listed = t("mine.vote_round", "zh", question=entry.question_text, round=1)  # zh: the language outside a session
    assert listed_question(entry) == listed != entry.question_text

    teacher.run()
    teacher.button(key="lead_round2").click().run()
    teacher.button(key="lead_explore").click().run()  # the class explores: a reload opens the start page
    me = class_session(student.session_state).me
    again = open_link("attention", **{"class": code, "me": me})  # a reload during round 2
    assert mine(again) == [(qid, 1, False)] and again.session_state[SCORE] == (0, 0)
    welcome = welcome_back(code, me)
    assert t("mine.restored", "en", asked=0, right=0) in welcome  # not "(0 of 1 right)"
    assert t("mine.hidden_note", "en", n=1) in welcome
    assert not any("of 1 right" in w for w in welcome)
    again.button_group(key=f"period_vote_{qid}_2").set_value(right).run()
    assert not again.exception
    assert mine(again) == [(qid, 1, False), (qid, 2, True)]  # round 1 stays, round 2 beside it
    assert again.session_state[SCORE] == (0, 0)  # still blind in round 2
    assert downloaded_verdicts(again) == [t("mine.hidden", "en")] * 2

    teacher.run()
    teacher.button(key="lead_reveal").click().run()
    again.run()  # the page's next reading of the class's state
    assert again.session_state[SCORE] == (1, 1)  # the vote counts once, by the answer after the discussion
    assert t("ex.score", "en", right=1, asked=1) in markdown(again)
    assert downloaded_verdicts(again) == [t("mine.no", "en"), t("mine.yes", "en")]

    teacher.button(key="lead_follow").click().run()  # the teacher leads again: the reveal stays
    teacher.button(key="lead_explore").click().run()
    later = open_link("attention", **{"class": code, "me": me})  # another reload: both rounds come back
    assert mine(later) == [(qid, 1, False), (qid, 2, True)]
    assert later.session_state[SCORE] == (1, 1)
    assert t("mine.restored", "en", asked=1, right=1) in welcome_back(code, me)
    assert [e.round for e in class_session(later.session_state).answers.values()] == [1, 2]


def test_the_concept_check_says_no_verdict_per_question_before_the_check_at_the_end_and_is_not_in_the_score():
    from tinygpt.explanations.concept_check import PHASES, PREFIX
    from tinygpt.ui.frame.student_state import CHECK_PREFIX, POST_CHECK_PREFIX, AnswerEntry, check_over, score_of

    assert (CHECK_PREFIX, POST_CHECK_PREFIX) == (f"{PREFIX}:", f"{PREFIX}:{PHASES[1]}:")  # the ids the check writes

    def entry(qid: str, right: bool) -> AnswerEntry:
        return AnswerEntry(qid, "q", "1", "1", right, 0.0, "ABCDEF")

    pre = [entry("check:pre:softmax:x", True), entry("check:pre:mask:x", False)]
    exercise = entry("ex:1", True)
    assert not check_over([*pre, exercise]) and all(is_hidden(e, frozenset(), False) for e in pre)
    assert not is_hidden(exercise, frozenset())
    assert score_of([*pre, exercise]) == (1, 1)  # the check has its own before/after line
    post = [*pre, entry("check:post:softmax:x", True)]
    assert check_over(post) and not any(is_hidden(e, frozenset(), check_over(post)) for e in post)
