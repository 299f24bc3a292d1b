"""A teacher's key that leaves no trace: the address is cleaned in place, the browser keeps the key for
``TINYGPT_TEACHER_HOURS`` (8 by default) rather than the answers' days, "Forget this device" takes it out
of the session and the cookie, and the projector's page grants nothing with it
(tinygpt.ui.classwork.class_guard, tinygpt.classroom.guard)."""

from __future__ import annotations

import re

import pytest
from helpers import open_link

from tinygpt.classroom.guard import teacher_hours
from tinygpt.config import ConfigError
from tinygpt.i18n import t


def _scripts(at) -> str:
    return " ".join(h.value for h in at.get("html"))


def test_the_teachers_hours_default_to_a_school_day_and_a_bad_value_is_named():
    assert teacher_hours({}) == 8 and teacher_hours({"TINYGPT_TEACHER_HOURS": "2"}) == 2
    for bad in ("0", "721", "eight", "1.5"):
        with pytest.raises(ConfigError) as caught:
            teacher_hours({"TINYGPT_TEACHER_HOURS": bad})
        assert caught.value.field == "TINYGPT_TEACHER_HOURS" and caught.value.value == bad


@pytest.mark.parametrize(("hours", "age"), [(None, 8 * 3600), ("2", 7200)])
def test_the_key_leaves_the_address_in_place_and_the_cookie_lasts_a_class(store, monkeypatch, hours, age):
    if hours:
        monkeypatch.setenv("TINYGPT_TEACHER_HOURS", hours)
    code, key = store.create_class("lesson=1&pages=attention")
    view = open_link("teacher", **{"class": code, "key": key})
    scripts = _scripts(view)
    assert "u.searchParams.delete('key')" in scripts and "history.replaceState" in scripts
    assert re.search(rf"tinygpt_teacher_{code}={key}; path=/; max-age={age};", scripts)


def test_forget_this_device_takes_the_key_out_of_the_session_and_the_cookie(store, monkeypatch):
    from tinygpt.ui.classwork import class_guard

    code, key = store.create_class("lesson=1&pages=attention")
    view = open_link("teacher", **{"class": code, "key": key})
    monkeypatch.setattr(class_guard, "browser_cookies", lambda: {f"tinygpt_teacher_{code}": key})
    view.button(key=f"teacher_forget_{code}").click().run()
    assert [s.value for s in view.success] == [t("teacher.forgotten", "en", code=code)]
    assert f"tinygpt_teacher_{code}=; path=/; max-age=0;" in _scripts(view)
    assert not view.header
    view.run()  # the browser's cookie (as the session started) opens the class no more
    assert [e.value for e in view.error] == [t("teacher.no_key", "en")] and not view.header


def test_the_projector_page_grants_no_teacher_rights_with_the_teachers_cookie(store, monkeypatch):
    from tinygpt.ui.classwork import class_guard

    code, key = store.create_class("lesson=1&pages=attention")
    monkeypatch.setattr(class_guard, "browser_cookies", lambda: {f"tinygpt_teacher_{code}": key})
    projector = open_link("projector", **{"class": code})
    keys = {w.key for w in projector.button} | {w.key for w in projector.toggle}
    assert not {k for k in keys if k and ("forget" in k or "close" in k or "clear" in k or "lead" in k)}
    assert key not in " ".join(m.value for m in [*projector.markdown, *projector.code])
