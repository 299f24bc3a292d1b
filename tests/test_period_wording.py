"""What a student's page says about switches it does not draw: set by the teacher leading live, or
by the lesson's link (tinygpt.ui.views.lesson.led_live, tinygpt.ui.attention.effect)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import ClassState, write_state
from tinygpt.classroom.store import Store, database_url
from tinygpt.i18n import t


@pytest.fixture
def store(tmp_path, monkeypatch) -> Store:
    """A fresh SQLite store for the test, the one the app's sessions use (TINYGPT_DATA_DIR)."""
    monkeypatch.delenv("TINYGPT_DATABASE_URL", raising=False)
    monkeypatch.setenv("TINYGPT_DATA_DIR", str(tmp_path / "store"))
    s = Store(database_url())
    yield s
    s.dispose()


def attention(lang: str, **params: str) -> AppTest:
    """A session that opens ``/attention?lang=…&params``, as a link does."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, **params})
    at.run()
    at.switch_page("pages/attention.py")
    at.query_params.update({"lang": lang, **params})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_switches_the_teacher_sets_live_are_said_to_be_the_teachers_not_the_links(store, lang):
    code, key = store.create_class(f"lesson=1&pages=predict,attention&model=context&lang={lang}")
    write_state(
        store,
        code,
        key,
        ClassState(page="attention", model="context", views={"attention": "uniform=layer"}, follow=True),
    )
    student = attention(lang, **{"class": code})
    uniform = t("attn.lesson_switch", lang, name=t("attn.uniform", lang), value=t("attn.lesson_on", lang))
    said = [m.value for m in student.markdown]
    assert t("attn.lesson_set_teacher", lang, switches=uniform) in said
    assert t("attn.lesson_set", lang, switches=uniform) not in said
    # a lesson's link that sets the switch, no class: the link set it
    linked = attention(lang, lesson="1", pages="attention", show="attn_step", model="context", uniform="layer")
    said = [m.value for m in linked.markdown]
    assert t("attn.lesson_set", lang, switches=uniform) in said
    assert t("attn.lesson_set_teacher", lang, switches=uniform) not in said
