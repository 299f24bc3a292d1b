"""Whether a class code exists is told only a few times a minute per client: the projector's page and a
student's ``?class=`` count their misses (tinygpt.ui.classwork.class_guard), so 60 codes from one client
are not 60 answers; the teacher's link and short links are counted likewise (tests/test_class_guard.py)."""

from __future__ import annotations

import pytest
from helpers import open_link

from tinygpt.classroom.guard import LIMIT
from tinygpt.i18n import t


@pytest.fixture
def one_client(monkeypatch):
    """Every session of the test comes from one address; the counts of failures start empty."""
    from tinygpt.ui.classwork import class_guard

    monkeypatch.setattr(class_guard, "client_id", lambda: "203.0.113.7")
    class_guard.attempts.clear()
    yield
    class_guard.attempts.clear()


def _codes(n: int) -> list[str]:
    return [f"ZZZZ{chr(65 + k // 26)}{chr(65 + k % 26)}" for k in range(n)]


def test_the_projector_tells_a_codes_existence_a_few_times_a_minute(store, one_client):
    code, _ = store.create_class("lesson=1&pages=attention")
    too_many = t("class.too_many", "en", seconds=0)[:40]
    answers = [[e.value for e in open_link("projector", **{"class": guess}).error] for guess in _codes(LIMIT)]
    told = [a for a in answers if not a[0].startswith(too_many)]
    assert 0 < len(told) < LIMIT and answers[len(told) :]  # each unknown code counts; then the page waits
    assert all(a == [t("projector.unknown", "en", code=g)] for a, g in zip(told, _codes(LIMIT), strict=False))
    blocked = open_link("projector", **{"class": code})  # even a real class: nothing said about it now
    assert [e.value[:40] for e in blocked.error] == [too_many]
    assert code not in " ".join(m.value for m in blocked.markdown) and not blocked.image


def test_a_students_unknown_class_counts_and_a_waiting_client_is_told_nothing(store, one_client):
    from tinygpt.ui.classwork import class_guard

    code, _ = store.create_class("lesson=1&pages=attention")
    for _ in range(LIMIT - 1):  # a session checks its class= once: the student's visit is the last miss allowed
        class_guard.attempts("class").failed("203.0.113.7")
    student = open_link("attention", **{"class": "ZZZZZZ"})
    shown = " ".join(w.value for w in [*student.warning, *student.info, *student.error])
    assert t("class.unknown", "en", code="ZZZZZZ") in shown
    assert class_guard.attempts("class").wait_s("203.0.113.7") > 0
    blocked = open_link("attention", **{"class": code})
    shown = " ".join(w.value for w in [*blocked.warning, *blocked.info, *blocked.error])
    assert t("class.too_many", "en", seconds=0)[:40] in shown and code not in shown
