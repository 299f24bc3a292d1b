"""A class code that is not one, typed by a student or in a link: the message names the value and
what a class code is (letters and digits, how many), in the student's language."""

from __future__ import annotations

import pytest
from helpers import open_link

from tinygpt.i18n import t
from tinygpt.ui.frame.language import md_escape
from tinygpt.ui.frame.student_state import class_session

JOIN = "FormSubmitter:class_join-"


def type_code(at, code: str, lang: str):
    at.text_input(key="class_join_code").input(code)
    return at.button(key=JOIN + t("class.join_button", lang)).click().run()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("typed", "length"), [("AB!@#$", 6), (" ab12 ", 4), ("K7M2Q0", 6)])
def test_a_typed_code_that_is_not_a_class_code_is_named_with_what_a_code_is(store, lang, typed, length):
    at = type_code(open_link(None, lang), typed, lang)
    accepted = t("accepted.class_code", lang, n=6)
    value = typed.strip()
    expected = t("class.typed_bad", lang, value=md_escape(value), length=length, accepted=accepted)
    assert [e.value for e in at.sidebar.error] == [expected]
    words = {"en": ("6 letters and digits", "A–Z", "2–9"), "zh": ("6 个字母和数字", "A–Z", "2–9")}[lang]
    assert all(w in expected for w in words) and md_escape(value) in expected
    assert "class" not in at.query_params and class_session(at.session_state).code is None  # joined nothing
    assert at.text_input(key="class_join_code").value == typed  # kept, to be corrected


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_s_bad_class_code_says_what_a_class_code_is(store, lang):
    at = open_link("attention", lang, **{"class": "AB!@#$"})
    (warning,) = [w.value for w in at.sidebar.warning]
    accepted = t("accepted.class_code", lang, n=6)
    assert warning == t("class.bad_code", lang, value=md_escape("AB!@#$"), accepted=accepted)  # shown as typed
