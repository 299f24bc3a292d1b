"""Settings checked as the server starts and promises that can be kept: a refused ``TINYGPT_*`` value is
logged at start (tinygpt.classroom.settings, tinygpt.ui.frame.server.log_settings); students never read a setting's
name; the teacher's page does not say "answers are recorded" while they cannot be written."""

from __future__ import annotations

import logging

from helpers import open_link
from test_classroom import answer_both

from tinygpt.classroom.settings import check_settings
from tinygpt.classroom.store_records import StoreError
from tinygpt.i18n import t

BAD = {
    "TINYGPT_ANSWER_DAYS": "0",
    "TINYGPT_TEACHER_HOURS": "0",
    "TINYGPT_TRUSTED_PROXIES": "proxy.lan",
    "TINYGPT_DATABASE_URL": "mysql://u:secret@db/x",
    "TINYGPT_MAX_JOBS": "two",
    "TINYGPT_MEMORY_LIMIT_MB": "-5",
}


def test_each_refused_setting_is_named_and_accepted_ones_pass():
    assert check_settings({}) == []
    good = {"TINYGPT_ANSWER_DAYS": "7", "TINYGPT_TEACHER_HOURS": "4", "TINYGPT_TRUSTED_PROXIES": "127.0.0.1"}
    assert check_settings({**good, "TINYGPT_MAX_JOBS": "3", "TINYGPT_DATABASE_URL": "postgresql://h/db"}) == []
    refused = check_settings(BAD)
    assert sorted(e.field for e in refused) == sorted(BAD)
    assert "secret" not in " ".join(str(e.value) for e in refused)  # a database URL's password is never logged


def test_a_refused_setting_is_logged_as_the_server_starts(monkeypatch, caplog):
    from tinygpt.ui.frame import server

    monkeypatch.setenv("TINYGPT_ANSWER_DAYS", "0")
    with caplog.at_level(logging.ERROR, logger=server.__name__):
        lines = server.log_settings()
    assert len(lines) == 1 and "TINYGPT_ANSWER_DAYS=0" in lines[0]
    assert [r.getMessage() for r in caplog.records if r.name == server.__name__] == lines


def test_a_student_never_reads_a_settings_name(store, monkeypatch):
    code, _ = store.create_class("lesson=1&pages=attention")
    monkeypatch.setenv("TINYGPT_ANSWER_DAYS", "0")
    student = open_link("attention", "en", step="softmax", guess="1", **{"class": code})
    answer_both(student)
    said = [e.value for e in [*student.warning, *student.info, *student.error, *student.caption, *student.markdown]]
    assert not [s for s in said if "TINYGPT_" in s]
    assert any(t("class.store_off", "en") in s for s in said)


def test_the_teachers_page_does_not_say_answers_are_recorded_while_they_cannot_be(store, monkeypatch):
    code, key = store.create_class("lesson=1&pages=attention")
    view = open_link("teacher", **{"class": code, "key": key})
    assert t("teacher.open", "en") in [m.value for m in view.markdown]

    def refuse(self, write=False):
        if write:
            raise StoreError("store.gone", "gone")

    monkeypatch.setattr(type(store), "check", refuse)
    view.run()
    texts = [m.value for m in view.markdown]
    assert t("teacher.open", "en") not in texts and t("teacher.open_not_recording", "en") in texts
