"""No English on zh pages: the teacher's multiselects draw no "Select all" (Streamlit's text, in
English only), and the led class's banner joins its clauses with "；" in zh, "; " in en."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import ClassState, write_state
from tinygpt.classroom.store import Store, database_url
from tinygpt.i18n import t


@pytest.fixture
def store(tmp_path, monkeypatch) -> Store:
    monkeypatch.delenv("TINYGPT_DATABASE_URL", raising=False)
    monkeypatch.setenv("TINYGPT_DATA_DIR", str(tmp_path / "store"))
    s = Store(database_url())
    yield s
    s.dispose()


def _app(page: str, lang: str, **params: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, **params})
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.query_params.update({"lang": lang, **params})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_lesson_builders_and_the_lead_views_multiselects_have_no_select_all(store):
    builder = _app("teacher", "zh", **{"from": "attention"})
    code, key = store.create_class("lesson=1&pages=attention&lang=zh")
    lead = _app("teacher", "zh", **{"class": code, "key": key})
    shown = [*builder.multiselect, *lead.multiselect]
    assert {m.key for m in shown} >= {"builder_pages", "builder_controls_attention", "lead_open"}
    assert all(m.proto.HasField("select_all") and m.proto.select_all == 0 for m in shown)


@pytest.mark.parametrize("lang, sep", [("zh", "；"), ("en", "; ")])
def test_the_leading_banner_joins_its_clauses_in_the_pages_language(store, lang, sep):
    code, key = store.create_class(f"lesson=1&pages=attention&model=textbook&lang={lang}")
    write_state(
        store,
        code,
        key,
        ClassState(page="attention", views={"attention": "step=softmax"}, model="textbook", follow=True),
    )
    student = _app("attention", lang, **{"class": code})
    head = t("period.leading", lang, where="@").split("@")[0]
    (banner,) = [i.value for i in student.info if i.value.startswith(head)]
    mask = t("attn.lesson_switch", lang, name=t("attn.mask", lang), value=t("attn.lesson_on", lang))
    assert f"{sep}{mask}" in banner
    assert (";" not in banner) if lang == "zh" else ("；" not in banner)
