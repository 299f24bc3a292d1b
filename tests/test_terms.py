"""Words after their meaning: in each page's first view (the text drawn before any click, both
languages), every glossary term's first use comes with its short phrase (``glossary.short.<term>``),
at that use, before it, or in the text right after it (a label's help, the caption beside it)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from helpers import open_link
from i18n_scan import _walk, visible_texts

from tinygpt.i18n import CATALOGUE, LANGUAGES, t
from tinygpt.ui.attention import state as view
from tinygpt.ui.frame.glossary import TERMS

#: How each term is written in running text, per language (a regular expression, case-insensitive).
FORMS: dict[str, dict[str, str]] = {
    "alpha": {"en": r"α", "zh": r"α"},
    "mask": {"en": r"\bmask", "zh": r"掩码"},
    "head": {"en": r"\bheads?\b", "zh": r"头"},
    "layer": {"en": r"\blayers?\b", "zh": r"层(?!归一化)"},
    "softmax": {"en": r"softmax", "zh": r"softmax"},
    "tau": {"en": r"τ", "zh": r"τ"},
    "logit": {"en": r"\blogits?\b", "zh": r"logit"},
    "residual": {"en": r"residual stream", "zh": r"残差流"},
    "layernorm": {"en": r"layernorm", "zh": r"layernorm|层归一化"},
    "shapes": {"en": r"\((?:B|T), ", "zh": r"\((?:B|T), "},
    "qkv": {"en": r"\b(?:quer(?:y|ies)|Q, K, V)\b", "zh": r"查询|Q、K、V|Q, K, V"},
    "d_model": {"en": r"\bd_model\b", "zh": r"\bd_model\b"},
    "d_head": {"en": r"\bd_head\b", "zh": r"\bd_head\b"},
    "token": {"en": r"\btokens?\b", "zh": r"token"},
    "loss": {"en": r"\bloss\b", "zh": r"损失"},
    "epoch": {"en": r"\bepochs?\b", "zh": r"轮数|每轮|\d+ 轮|epoch"},
}
PAGES = ("train", "predict", "attention", "theory")


def plain(text: str) -> str:
    """``text`` without markdown emphasis, so a bold term still matches its phrase."""
    return re.sub(r"\*\*|`", "", text)


class _Alone:
    """One element of the tree without its children (``visible_texts`` of it alone)."""

    children = None

    def __init__(self, node: object) -> None:
        self._node = node

    def __getattr__(self, name: str) -> object:
        return getattr(self._node, name)


def texts_of(at, helps: bool = True) -> list[str]:
    """The main-area texts of ``at`` in document order, each widget's help right after its label
    (the ``?`` sits beside the label, before the options), or without any help (``helps=False``:
    what is read without a tap); not the sidebar, whose glossary lists every term."""
    texts: list[str] = []
    for node in _walk(at.main):
        own = visible_texts(SimpleNamespace(_tree=_Alone(node)))
        help_text = getattr(node, "help", None)
        if help_text and own and own[-1] == help_text:
            own = (
                [own[0], help_text, *own[1:-1]] if helps and len(own) > 2 else own[:-1] + ([help_text] if helps else [])
            )
        texts.extend(own)
    return [plain(text) for text in texts]


def first_view_texts(page: str, lang: str) -> list[str]:
    """The page's texts as a link opens it (no click), helps included."""
    return texts_of(open_link(page, lang))


def unexplained(texts: list[str], lang: str) -> dict[str, str]:
    """term -> the text of its first use, for each term whose short phrase is not in that text,
    an earlier one or the next one."""
    missing = {}
    for term, forms in FORMS.items():
        pattern = re.compile(forms[lang], re.IGNORECASE)
        first = next((i for i, text in enumerate(texts) if pattern.search(text)), None)
        if first is None:
            continue
        phrase = plain(t(f"glossary.short.{term}", lang))
        if not any(phrase in text for text in texts[: first + 2]):
            missing[term] = texts[first][:160]
    return missing


def test_every_term_has_a_short_phrase_and_a_glossary_entry():
    assert set(FORMS) == set(TERMS)
    for term in TERMS:
        for lang in LANGUAGES:
            short = CATALOGUE[f"glossary.short.{term}"][lang]
            assert 0 < len(short) <= 60, (term, lang, short)
            assert short in CATALOGUE[f"glossary.{term}"][lang], (term, lang)  # one wording


def test_a_term_used_before_its_phrase_is_caught():
    texts = ["Flip the causal mask.", "Then look."]
    assert unexplained(texts, "en") == {"mask": "Flip the causal mask."}
    texts = ["Flip the causal mask.", f"Causal mask: {t('glossary.short.mask', 'en')}."]
    assert "mask" not in unexplained(texts, "en")  # the text right after explains it


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("page", PAGES)
def test_each_terms_first_use_in_a_first_view_says_what_it_is(page, lang):
    assert unexplained(first_view_texts(page, lang), lang) == {}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_after_the_mask_flips_the_reasons_alpha_is_said_in_words_without_a_tap(lang):
    at = open_link("attention", lang)
    at.toggle(key=view.K_MASK).set_value(False).run()
    texts = texts_of(at, helps=False)
    assert any("α" in text and text.startswith("- ") for text in texts)  # a reason gives α's numbers
    assert "alpha" not in unexplained(texts, lang)
