"""No English on zh pages: the teacher's multiselects draw no "Select all" (Streamlit's text, in
English only), and the led class's banner joins its clauses with "；" in zh, "; " in en."""

from __future__ import annotations

import pytest
from helpers import open_link

from tinygpt.classroom.period import ClassState, write_state
from tinygpt.i18n import t


def test_the_lesson_builders_and_the_lead_views_multiselects_have_no_select_all(store):
    builder = open_link("teacher", "zh", **{"from": "attention"})
    code, key = store.create_class("lesson=1&pages=attention&lang=zh")
    lead = open_link("teacher", "zh", **{"class": code, "key": key})
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
    student = open_link("attention", lang, **{"class": code})
    head = t("period.leading", lang, where="@").split("@")[0]
    (banner,) = [i.value for i in student.info if i.value.startswith(head)]
    mask = t("attn.lesson_switch", lang, name=t("attn.mask", lang), value=t("attn.lesson_on", lang))
    assert f"{sep}{mask}" in banner
    assert (";" not in banner) if lang == "zh" else ("；" not in banner)
