"""The teacher is warned before asking a question whose every answer is right (uniform attention
makes every key tie), and not for one that has a wrong answer."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import t
from tinygpt.ui.teacher.lead_question import L_KIND, L_ROW


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_is_warned_when_uniform_attention_makes_every_key_right(store, lang):
    code, key = store.create_class(f"lesson=1&pages=attention&model=textbook&lang={lang}")
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params.update({"lang": lang, "class": code, "key": key})
    at.run()
    at.switch_page("pages/teacher.py")
    at.query_params.update({"lang": lang, "class": code, "key": key})
    at.run()
    at.button_group(key="lead_model").set_value("textbook").run()
    at.selectbox(key=L_KIND).set_value("argmax_key").run()
    at.selectbox(key=L_ROW).set_value(3).run()
    prefix = t("period.all_right_uniform", lang, n=4)[:12]
    assert not any(w.value.startswith(prefix) for w in at.warning)  # the model's own attention has a winner
    at.toggle(key="lead_uniform").set_value(True).run()
    assert not at.exception
    assert t("period.all_right_uniform", lang, n=4) in [w.value for w in at.warning]  # 你好世界: keys 0..3 tie
