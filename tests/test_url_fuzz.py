"""Every URL parameter of every page, fed arbitrary text (Hypothesis): the page never shows an
exception, and each message it shows instead is in the user's language.

The names come from the pages' own URL tables (``tinygpt.ui.frame.url.Param`` rows) and the parameters
read beside them (the model, a lesson, a class, a short link, a resume token, the teacher's key),
so a parameter added to a page is fuzzed without changing this file."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinygpt.classroom.class_links import LESSON_KEYS, PRIVATE_PARAMS
from tinygpt.config import DEFAULT_GPT
from tinygpt.ui.attention.state import url_params as attention_params
from tinygpt.ui.choice.model_choice import MODEL_PARAMS
from tinygpt.ui.theory.theory_state import URL_PARAMS as THEORY_URL
from tinygpt.ui.train.train_url import TRAIN_URL
from tinygpt.ui.views.lesson import LESSON_PARAMS

#: Read on every page: the model (Predict, Attention, the banner), a lesson, a class, short links.
EVERY_PAGE = tuple(p.name for p in MODEL_PARAMS) + LESSON_PARAMS + LESSON_KEYS + PRIVATE_PARAMS
PREDICT = ("prefix", "n", "decode", "tau", "k", "p", "seed", "guess")
PAGES: dict[str, tuple[str, ...]] = {
    "train": tuple(p.name for p in TRAIN_URL) + EVERY_PAGE,
    "predict": PREDICT + EVERY_PAGE,
    "attention": tuple(p.name for p in attention_params(DEFAULT_GPT)) + EVERY_PAGE,
    "theory": tuple(p.name for p in THEORY_URL) + EVERY_PAGE,
    "teacher": ("class", "key", "from", "step", "model") + LESSON_PARAMS,
}
#: What a careless or hostile link holds: digits that int() reads or refuses, full-width forms,
#: invisible and direction-changing characters, separators of train= and edits=, Chinese, letters.
ALPHABET = "0123456789-+.e:;,=²３①٣ \u200b\u202e\ttrueofnaNsqrt你好世界abcZ"
RAW = st.one_of(st.text(alphabet=ALPHABET, max_size=24), st.just("9" * 4400), st.text(max_size=12))
CJK = re.compile(r"[\u4e00-\u9fff]")


def _messages(at) -> list[str]:
    return [str(e.value) for e in (*at.error, *at.warning)]


def _predict_names() -> set[str]:
    """The Predict page's parameter names, from its table."""
    from tinygpt.ui.views.predict_table import url_params

    return {p.name for p in url_params()}


def test_the_predict_list_is_the_pages_table():
    assert set(PREDICT) >= _predict_names()


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", sorted(PAGES))
def test_arbitrary_text_in_any_parameter_never_raises_and_is_answered_in_the_users_language(page, lang):
    from streamlit.testing.v1 import AppTest

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.dictionaries(st.sampled_from(PAGES[page]), RAW, min_size=1, max_size=4))
    def check(params: dict[str, str]) -> None:
        at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
        at.query_params["lang"] = lang
        at.run()
        at.query_params.update(params)
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, (params, [e.value for e in at.exception])
        for message in _messages(at):
            assert message.strip(), params
            if lang == "zh":  # a Chinese page answers in Chinese, whatever the value repeated
                assert CJK.search(re.sub(r"“[^”]*”|\"[^\"]*\"|`[^`]*`", "", message)), (params, message)

    check()
