"""What a student's page says about switches it does not draw: set by the teacher leading live, or
by the lesson's link (tinygpt.ui.views.lesson.led_live, tinygpt.ui.attention.effect)."""

from __future__ import annotations

import pytest
from helpers import open_link

from tinygpt.classroom.period import ClassState, write_state
from tinygpt.i18n import t


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_switches_the_teacher_sets_live_are_said_to_be_the_teachers_not_the_links(store, lang):
    code, key = store.create_class(f"lesson=1&pages=predict,attention&model=context&lang={lang}")
    write_state(
        store,
        code,
        key,
        ClassState(page="attention", model="context", views={"attention": "uniform=layer"}, follow=True),
    )
    student = open_link("attention", lang, **{"class": code})
    uniform = t("attn.lesson_switch", lang, name=t("attn.uniform", lang), value=t("attn.lesson_on", lang))
    said = [m.value for m in student.markdown]
    assert t("attn.lesson_set_teacher", lang, switches=uniform) in said
    assert t("attn.lesson_set", lang, switches=uniform) not in said
    # a lesson's link that sets the switch, no class: the link set it
    linked = open_link(
        "attention", lang, lesson="1", pages="attention", show="attn_step", model="context", uniform="layer"
    )
    said = [m.value for m in linked.markdown]
    assert t("attn.lesson_set", lang, switches=uniform) in said
    assert t("attn.lesson_set_teacher", lang, switches=uniform) not in said
