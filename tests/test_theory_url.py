"""The Theory page in its URL: a reload keeps the open section, the sliders and the switches; a
refused value gets the message every page gives, naming the parameter and what is accepted."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import t
from tinygpt.ui.theory.theory_state import SECTIONS, URL_PARAMS
from tinygpt.ui.views.theory_table import SLIDERS, THEORY, TOGGLES


def theory(lang: str = "en", **params: str) -> AppTest:
    """The Theory page opened with ``?lang=`` and ``params`` (a link, or a reload of the address)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=60)
    at.query_params.update({"lang": lang, **params})
    at.switch_page("pages/theory.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def address(at: AppTest) -> dict[str, str]:
    """The page's query parameters as the address bar holds them after the run."""
    return {k: str(v) for k, v in at.query_params.items()}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_reload_keeps_the_open_section_and_the_moved_slider_and_switch(lang):
    at = theory(lang)
    at.button_group(key="theory_section").set_value("attention").run()
    at.slider(key="theory_tau").set_value(2.5).run()
    at.toggle(key="theory_mask").set_value(False).run()
    kept = address(at)
    assert kept["section"] == "attention" and kept["tau"] == "2.5" and kept["mask"] == "0"
    assert "q1" not in kept  # a control at its default stays out of the address
    again = theory(**kept)  # the reload: a new session with the same address
    assert again.button_group(key="theory_section").value == "attention"
    assert again.slider(key="theory_tau").value == 2.5 and again.toggle(key="theory_mask").value is False
    assert not again.warning
    assert address(again) == kept


def test_a_slider_of_another_section_comes_back_with_its_section():
    at = theory(section="weighted_sum", r1="4.5")
    assert at.button_group(key="theory_section").value == "weighted_sum"
    assert at.slider(key="theory_r1").value == 4.5
    at.button_group(key="theory_section").set_value("definition").run()
    assert address(at).get("r1") == "4.5" and "section" not in address(at)  # the first section is the default


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    ("name", "raw", "key", "accepted_part"),
    [
        ("section", "nowhere", "theory_section", "practice"),
        ("tau", "99", "theory_tau", "5"),
        ("a1", "½", "theory_a1", "-5"),
        ("mask", "maybe", "theory_mask", "0"),
        ("step", "nowhere", None, "softmax"),
        ("part", "steps", "theory_section", "weighted_sum"),
    ],
)
def test_a_refused_value_is_named_with_what_is_accepted_and_the_view_keeps_its_default(
    lang, name, raw, key, accepted_part
):
    at = theory(lang, **{name: raw}, **({"concept": "softmax"} if name == "step" else {}))
    (warning,) = [w.value for w in at.warning]
    said = t("link.bad_param", lang, name=name, value=raw, accepted="")
    assert warning.startswith(said[: said.index(raw) + len(raw)]) and accepted_part in warning
    if key == "theory_section":
        assert at.button_group(key=key).value == "definition"
    elif key is not None:
        at.button_group(key="theory_section").set_value("attention" if key != "theory_a1" else "vectors").run()
        widget = at.toggle(key=key) if key in TOGGLES else at.slider(key=key)
        assert widget.value == THEORY[key].default
        assert not at.warning  # said once, not again on every run


def test_every_slider_and_switch_of_the_page_is_a_row_of_its_url_table():
    names = {p.name for p in URL_PARAMS}
    assert {name for name, *_ in SLIDERS.values()} | set(TOGGLES.values()) | {
        "section",
        "part",
        "concept",
        "step",
    } == names
    assert set(SLIDERS) | set(TOGGLES) <= set(THEORY)
    assert all(lo <= THEORY[key].default <= hi for key, (_, lo, hi, _) in SLIDERS.items())
    assert set(SECTIONS) >= {"definition", "practice"}


def test_part_opens_a_section_as_section_does_and_the_address_says_section():
    at = theory(part="Practice ")
    assert at.button_group(key="theory_section").value == "practice" and not at.warning
    assert address(at).get("section") == "practice" and "part" not in address(at)


def test_a_link_from_a_step_leaves_the_address_when_the_student_opens_another_section():
    at = theory(concept="softmax", step="scale")
    assert address(at)["concept"] == "softmax" and address(at)["step"] == "scale" and at.info
    at.button_group(key="theory_section").set_value("practice").run()
    assert "concept" not in address(at) and "step" not in address(at) and not at.info
    assert address(at)["section"] == "practice"
    again = theory(**address(at))  # the reload opens the section the student chose, not the link's
    assert again.button_group(key="theory_section").value == "practice"
