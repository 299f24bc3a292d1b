"""Both languages everywhere: a complete catalogue, the language choice, and every page translated.

The AppTest renders are cached per (page, language, variant) so each is run once per test session.
"""

import functools
import re
import string
from pathlib import Path

import pytest
from i18n_scan import raw_keys, untranslated, user_text, visible_texts
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import CATALOGUE, LANGUAGES, choose_language, language_from_locale, t

PAGES = {
    "train": "pages/train.py",
    "predict": "pages/predict.py",
    "attention": "pages/attention.py",
    "theory": "pages/theory.py",
    "teacher": "pages/teacher.py",
}
KNOWN = {
    "train": "train.title",
    "predict": "predict.title",
    "attention": "attn.title",
    "theory": "theory.title",
    "teacher": "teacher.title",
}
NAV = {
    "pages/train.py": "nav.train",
    "pages/predict.py": "nav.predict",
    "pages/attention.py": "nav.attention",
    "pages/theory.py": "nav.theory",
    "pages/teacher.py": "nav.teacher",  # reached by its URL, not listed in the sidebar
    "pages/projector.py": "nav.projector",  # the same
}
# Widget states that show more of a page than its first render (chart titles of a per-head step,
# the exercise's answer, quiz feedback, an input error).
VARIANTS = {
    "train": {},
    "predict": {},
    "predict@open": {"predict_positions": True, "predict_all_steps": True, "predict_context_box": True},
    "attention": {},
    "attention@softmax": {"attn_step": "softmax"},
    "theory": {},
    "theory@answered": {
        "theory_show_answer": True,
        "theory_r1": 0.0,
        "theory_r2": 0.0,
        "theory_r3": 0.0,
        "theory_quiz_shift": "a",
        "theory_quiz_temperature": "b",
        "theory_answer": "my own answer",
    },
    "teacher": {},
}
# Pages owned by others that still show untranslated text: {variant: offending strings}. Empty now.
KNOWN_UNTRANSLATED: dict[str, list[str]] = {}


def fields(text: str) -> set[str]:
    """The {field} names of a format string; raises ValueError on unbalanced braces."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ---------------------------------------------------------------- the catalogue


def test_every_key_has_non_empty_text_in_both_languages():
    missing = [(key, lang) for key, texts in CATALOGUE.items() for lang in LANGUAGES if not texts.get(lang, "").strip()]
    assert not missing, missing
    assert len(CATALOGUE) > 100


def test_fields_are_the_same_in_both_languages():
    mismatched = {}
    for key, texts in CATALOGUE.items():
        try:
            zh, en = fields(texts["zh"]), fields(texts["en"])
        except ValueError as exc:  # a single { or } that is not a field
            mismatched[key] = str(exc)
            continue
        if zh != en:
            mismatched[key] = (sorted(zh), sorted(en))
    assert not mismatched, mismatched


def test_fields_helper_and_t_fill_in_values():
    assert fields("a {x} b {y:.2e} {{literal}}") == {"x", "y"}
    with pytest.raises(ValueError):
        fields("half { brace")
    assert t("theory.link", "en", number=3, name="Scores") == "See it in the model: step 3 · Scores"
    assert t("theory.link", "zh-CN", number=3, name="得分") == "在模型中查看：第 3 步 · 得分"
    with pytest.raises(KeyError):
        t("theory.no_such_key", "en")


@pytest.mark.parametrize(
    "locale, expected",
    [
        ("en-US", "en"),
        ("en", "en"),
        ("zh-CN", "zh"),
        ("zh-Hant-TW", "zh"),
        ("zh_TW", "zh"),
        ("ZH", "zh"),
        ("fr-FR", "en"),
        ("de", "en"),
        (None, "zh"),
        ("", "zh"),
    ],
)
def test_language_from_browser_locale(locale, expected):
    assert language_from_locale(locale) == expected


@pytest.mark.parametrize(
    "url, locale, expected",
    [
        ("zh", "en-US", "zh"),
        ("en", "zh-CN", "en"),
        ("EN", None, "en"),
        ("fr", "en-US", "en"),
        ("fr", "zh-CN", "zh"),
        ("", "en-GB", "en"),
        (None, None, "zh"),
    ],
)
def test_url_language_wins_over_the_locale_unless_unknown(url, locale, expected):
    assert choose_language(url, locale) == expected


# ---------------------------------------------------------------- AppTest: every page


def open_app(page: str, *, lang: str | None = None, locale: str | None = None, timeout: float = 240) -> AppTest:
    """Run the app on ``page`` with optional ?lang= and browser locale; fails on any exception."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=timeout)
    if lang is not None:
        at.query_params["lang"] = lang
    if locale is not None:
        at.context["locale"] = locale
    at.switch_page(PAGES[page]).run()  # before the first run the page is found by its file name
    assert not at.exception, [e.value for e in at.exception]
    return at


@functools.cache
def rendered(variant: str, lang: str) -> tuple[AppTest, list[str]]:
    """The page of ``variant`` in ``lang`` with the variant's widget state, and its visible texts."""
    at = open_app(variant.split("@")[0], lang=lang)
    state = VARIANTS[variant]
    if state:
        for key, value in state.items():
            at.session_state[key] = value
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at, visible_texts(at)


def nav_names(at: AppTest) -> dict[str, str]:
    """{page file: its name in the navigation} of the last run."""
    pages = at._registered_pages.values()  # a page without a file (the first page under its own path) left out
    return {"pages/" + Path(info["script_path"]).name: info["page_name"] for info in pages if info["script_path"]}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_renders_in_both_languages_with_translated_navigation(page, lang):
    at, texts = rendered(page, lang)
    assert at.title[0].value == t(KNOWN[page], lang)
    assert {path: t(key, lang) for path, key in NAV.items()} == nav_names(at)
    assert at.radio(key="_lang_radio").label == t("app.language", lang)
    assert at.query_params["lang"] == lang
    other = "en" if lang == "zh" else "zh"
    assert t(KNOWN[page], other) not in texts  # nothing of the other language's title leaks in


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_no_page_shows_a_raw_key(variant, lang):
    _, texts = rendered(variant, lang)
    assert len(texts) > 10
    assert raw_keys(texts) == []


def _untranslated_param(variant: str):
    if variant in KNOWN_UNTRANSLATED:
        reason = f"{variant} shows text that is the same in zh and en: {KNOWN_UNTRANSLATED[variant]}"
        return pytest.param(variant, marks=pytest.mark.xfail(reason=reason, strict=False))
    return variant


@pytest.mark.parametrize("variant", [_untranslated_param(v) for v in VARIANTS])
def test_no_page_shows_hard_coded_text(variant):
    """A string shown identically in zh and en that has words (Latin or CJK) was not translated."""
    at_zh, texts_zh = rendered(variant, "zh")
    _, texts_en = rendered(variant, "en")
    assert untranslated(texts_zh, texts_en, user_text(at_zh)) == []


def test_hard_coded_text_is_caught():
    """The scan flags a literal label and a literal chart title, and lets symbols and user text through."""
    script = """
import altair as alt, pandas as pd, streamlit as st
from tinygpt.ui.frame.language import language_switch, tr
language_switch()
st.title(tr("theory.title"))
st.slider("Heads", 1, 8, key="n")
st.text_input(tr("attn.text"), "你好世界", key="txt")
st.caption("你好世界 · d_model = 512 · $QK^T$")
st.altair_chart(alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x").properties(title="alpha per head"))
st.markdown("注意力")
"""
    texts = {}
    for lang in LANGUAGES:
        at = AppTest.from_string(script, default_timeout=30)
        at.query_params["lang"] = lang
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        texts[lang] = (at, visible_texts(at))
    typed = user_text(texts["zh"][0])
    assert untranslated(texts["zh"][1], texts["en"][1], typed) == ["Heads", "alpha per head", "注意力"]
    assert raw_keys(["theory.title", "see attn.text here", "e.g. 3.5", "pages/predict.py"]) == [
        "theory.title",
        "see attn.text here",
    ]


# ---------------------------------------------------------------- AppTest: choosing and keeping the language


@pytest.mark.parametrize("locale, expected", [("en-US", "en"), ("zh-CN", "zh"), ("fr-FR", "en"), (None, "zh")])
def test_default_language_follows_the_browser_locale(locale, expected):
    at = open_app("theory", locale=locale)
    assert at.title[0].value == t("theory.title", expected)
    assert at.query_params["lang"] == expected  # and is written into the URL


@pytest.mark.parametrize("url, locale, expected", [("zh", "en-US", "zh"), ("en", "zh-CN", "en"), ("xx", "en-US", "en")])
def test_lang_in_the_url_wins_over_the_locale(url, locale, expected):
    at = open_app("theory", lang=url, locale=locale)
    assert at.title[0].value == t("theory.title", expected)
    assert at.query_params["lang"] == expected
    refused = [t("app.lang_refused", expected, value=url, accepted="zh, en")] if url == "xx" else []
    assert [w.value for w in at.sidebar.warning] == refused  # an unknown value is named, once
    at.run()
    assert [w.value for w in at.sidebar.warning] == []


def test_language_choice_survives_page_switches():
    at = open_app("theory", locale="en-US")
    at.radio(key="_lang_radio").set_value("zh").run()
    assert at.title[0].value == t("theory.title", "zh") and at.query_params["lang"] == "zh"
    at.query_params.clear()  # st.navigation drops the query string on a page switch
    at.switch_page("pages/predict.py").run()
    assert not at.exception
    assert at.title[0].value == t("predict.title", "zh")
    assert at.query_params["lang"] == "zh"  # written back into the URL
    assert nav_names(at)["pages/theory.py"] == t("nav.theory", "zh")
    at.switch_page("pages/theory.py").run()
    assert at.title[0].value == t("theory.title", "zh")
    at.radio(key="_lang_radio").set_value("en").run()
    assert at.title[0].value == t("theory.title", "en") and nav_names(at)["pages/train.py"] == "Train"


def test_the_catalogue_imports_neither_torch_nor_streamlit():
    import subprocess
    import sys

    code = (
        "import sys, tinygpt.i18n; bad = [m for m in ('torch', 'streamlit') if m in sys.modules]; assert not bad, bad"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1]
    )
    assert result.returncode == 0, result.stderr


def test_every_language_is_one_catalogue_with_the_same_keys():
    from tinygpt import i18n

    keys = {language: set(i18n._load_language(language)) for language in LANGUAGES}
    assert all(k == keys["zh"] for k in keys.values())
    assert {"step.mask.name", "nav.train", "attn.title"} <= keys["en"]


def test_a_bold_field_opens_after_a_space_or_punctuation_so_any_value_is_bold():
    """CommonMark opens ``**`` before punctuation only after a space or punctuation: "他**。我**"
    shows its stars. So a bold field (a generated text, a character) must follow one of those."""
    import unicodedata

    for key, texts in CATALOGUE.items():
        for lang, text in texts.items():
            for m in re.finditer(r"\*\*\{", text):
                before = text[m.start() - 1] if m.start() else " "
                fixed = before != "}"  # not the end of another field, whose value may end in a letter
                assert fixed and (before.isspace() or unicodedata.category(before).startswith("P")), (key, lang, text)
