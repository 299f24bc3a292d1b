"""Collect the text a rendered AppTest page shows, to check it for raw keys and untranslated strings.

Used by tests/test_i18n.py. ``visible_texts`` walks the element tree and returns every string a
student can read: titles, headers, markdown, captions, alerts, widget labels / help / options,
metric labels, page-link labels, expander labels, dataframe column headers, and the titles of
Vega-Lite charts (chart, axis and legend titles). ``suspicious`` removes what may legitimately be
the same in both languages (LaTeX, symbols, numbers, field names such as d_model, the user's own
text, language names) and reports what is left if it still has a Latin word or a CJK character.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from tinygpt.i18n import CATALOGUE

# Identifiers and symbols that are written the same in Chinese and English text.
ALLOWED_TOKENS = (
    "d_model",
    "d_head",
    "d_ff",
    "d_k",
    "d_v",
    "n_heads",
    "n_layers",
    "max_len",
    "top_k",
    "W_Q",
    "W_K",
    "W_V",
    "W_O",
    "softmax",
    "Softmax",
    "exp",
    "logits",
    "logit",
    "GPT",
    "PyTorch",
    "scaled_dot_product_attention",
    "Adam",
    "Pre-LN",
    "LayerNorm",
)
LANGUAGE_NAMES = {"中文", "English"}  # the language switch names each language in itself
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
LATEX = re.compile(r"\$[^$]*\$")
KEY_LIKE = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$")
KEY_TOKEN = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+")


def _walk(node) -> Iterator[object]:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _walk(child)


def _chart_titles(spec: object) -> Iterator[str]:
    """Every "title" (chart, axis, legend, tooltip) in a Vega-Lite spec."""
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "title":
                if isinstance(value, str):
                    yield value
                elif isinstance(value, list):
                    yield from (v for v in value if isinstance(v, str))
                elif isinstance(value, dict) and isinstance(value.get("text"), str):
                    yield value["text"]
            else:
                yield from _chart_titles(value)
    elif isinstance(spec, list):
        for item in spec:
            yield from _chart_titles(item)


def visible_texts(at) -> list[str]:
    """The strings the rendered app shows (in document order, duplicates kept)."""
    texts: list[str] = []
    for node in _walk(at._tree):
        kind = getattr(node, "type", "")
        proto = getattr(node, "proto", None)
        if kind in (
            "title",
            "header",
            "subheader",
            "markdown",
            "caption",
            "alert",
            "info",
            "success",
            "warning",
            "error",
            "text",
            "exception",
        ):
            texts.append(str(node.value))
        elif kind == "vega_lite_chart" and proto is not None:
            texts.extend(_chart_titles(json.loads(proto.spec)))
        elif kind in ("dataframe", "table"):
            texts.extend(str(c) for c in node.value.columns)
        elif kind == "page_link" and proto is not None:
            texts.append(proto.label)
        elif kind == "expandable" and proto is not None:
            texts.append(proto.expandable.label)
        elif kind == "tab" and proto is not None:
            texts.append(proto.tab.label)
        else:
            label = getattr(node, "label", None)
            if isinstance(label, str):
                texts.append(label)
                options = getattr(node, "options", None)
                if isinstance(options, list) and kind in ("radio", "selectbox", "multiselect"):
                    texts.extend(str(o) for o in options)
        help_text = getattr(node, "help", None)
        if isinstance(help_text, str) and help_text:
            texts.append(help_text)
    return [t for t in texts if t and t.strip()]


def raw_keys(texts: list[str]) -> list[str]:
    """Texts that are, or contain, an i18n key instead of its text (e.g. "train.title")."""
    return [
        text
        for text in texts
        if KEY_LIKE.match(text.strip()) or any(token in CATALOGUE for token in KEY_TOKEN.findall(text))
    ]


def user_text(at) -> str:
    """Everything the user typed into text inputs / areas (their own text is the same in both languages)."""
    return "".join(str(w.value or "") for w in [*at.text_input, *at.text_area])


def suspicious(text: str, typed: str) -> bool:
    """True if ``text`` still holds a Latin word or a CJK character once allowed parts are removed."""
    if text in LANGUAGE_NAMES:
        return False
    rest = LATEX.sub(" ", text)
    for token in ALLOWED_TOKENS:
        rest = rest.replace(token, " ")
    if typed:
        rest = "".join(" " if ch in typed else ch for ch in rest)
    return bool(LATIN_WORD.search(rest) or CJK.search(rest))


def untranslated(texts_zh: list[str], texts_en: list[str], typed: str) -> list[str]:
    """Visible strings shown identically in the Chinese and the English page that should differ."""
    same = set(texts_zh) & set(texts_en)
    return sorted(t for t in same if suspicious(t, typed))
