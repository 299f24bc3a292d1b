"""The projector and the start page take a typed class code, and the projector follows the class
closing and reopening (AppTest); a class's link names no language."""

from __future__ import annotations

from helpers import open_link
from streamlit.testing.v1 import AppTest

from tinygpt.classroom.period import close_period, reopen_period
from tinygpt.i18n import t
from tinygpt.ui.frame.student_state import class_session


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown] + [i.value for i in at.info] + [h.value for h in at.title]


def test_the_projector_takes_a_typed_code_and_follows_the_class_closing_and_reopening(store):
    code, key = store.create_class("lesson=1&pages=attention&lang=en")
    projector = open_link("projector")
    assert t("projector.no_class", "en") in texts(projector)
    projector.text_input(key="projector_typed").input(code.lower())
    projector.button(key="FormSubmitter:projector_code_form-" + t("projector.show_class", "en")).click().run()
    assert not projector.exception, [e.value for e in projector.exception]
    assert projector.query_params["class"] == code
    assert code in texts(projector) and t("projector.heading", "en") in texts(projector)
    close_period(store, code, key)
    projector.run()
    assert t("projector.closed", "en", code=code) in texts(projector) and code not in [
        m.value for m in projector.markdown
    ]
    reopen_period(store, code, key)
    projector.run()
    assert code in texts(projector)


def test_a_student_types_the_class_code_on_the_start_page_and_joins(store):
    code, _ = store.create_class("lesson=1&pages=attention&lang=en")
    student = open_link(None)
    student.text_input(key="class_join_code").input(f" {code.lower()} ")
    student.button(key="FormSubmitter:class_join-" + t("class.join_button", "en")).click().run()
    assert not student.exception, [e.value for e in student.exception]
    cs = class_session(student.session_state)
    assert (cs.code, cs.status) == (code, "open")
