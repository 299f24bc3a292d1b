"""The concept check's round at the end survives a reload (AppTest, zh and en): the address keeps it
open (``check=post``, never in a link for others) until it is handed in."""

from __future__ import annotations

import pytest
from helpers import open_page
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.class_links import PRIVATE_PARAMS
from tinygpt.explanations.concept_check import CONCEPTS
from tinygpt.explanations.exercises import NONE
from tinygpt.i18n import t
from tinygpt.ui.frame.student_state import class_session
from tinygpt.ui.views.attention_table import K_CHECK

PICKS = {"mask": ["0"], "last": [NONE], "row_sum": "1", "softmax": "between", "tau": "3"}


def hand_in(at: AppTest, phase: str, lang: str) -> None:
    for concept, value in PICKS.items():
        at.button_group(key=f"check_{phase}_{concept}").set_value(value)
    at.button(key=f"FormSubmitter:check_form_{phase}-{t('check.submit', lang)}").click().run()
    assert not at.exception, [e.value for e in at.exception]


def reload(at: AppTest, lang: str) -> AppTest:
    """The same address in a new session, the student's token in it as the browser's cookie brings it."""
    again = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    again.query_params.update({**dict(at.query_params), "me": class_session(at.session_state).me})
    again.session_state[K_CHECK] = True
    again.run()
    again.switch_page("pages/attention.py")
    again.run()
    assert not again.exception, [e.value for e in again.exception]
    return again


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_reload_during_the_round_at_the_end_goes_on_with_it(lang):
    at = open_page("attention", lang)
    at.session_state[K_CHECK] = True
    at.run()
    hand_in(at, "pre", lang)
    assert "check" not in at.query_params  # before the round at the end: nothing to keep
    at.button(key="check_start_post").click().run()
    assert at.query_params["check"] == "post" and "check" in PRIVATE_PARAMS
    again = reload(at, lang)
    assert not [b for b in again.button if b.key == "check_start_post"]  # not sent back to the start
    assert again.button_group(key="check_post_mask") is not None  # the round at the end, at once
    assert [m.value for m in again.markdown if m.value == f"**{t('check.post', lang)}**"]
    hand_in(again, "post", lang)
    assert "check" not in again.query_params  # handed in: the results, nothing more to keep
    post = [q for q in class_session(again.session_state).answers if q.startswith("check:post:")]
    assert len(post) == len(CONCEPTS)
    later = reload(again, lang)  # the results stay, no form comes back
    assert (
        not [g for g in later.button_group if (g.key or "").startswith("check_")] and "check" not in later.query_params
    )
