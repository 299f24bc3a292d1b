"""What a link carries that the app cannot take whole is said, not silently changed: a text= or
prefix= longer than a link carries is cut to its start with a note naming both lengths."""

from __future__ import annotations

import pytest
from helpers import open_page

from tinygpt.i18n import t
from tinygpt.params import MAX_TEXT_CHARS


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page, name", [("attention", "text"), ("predict", "prefix")])
def test_a_text_longer_than_a_link_carries_is_cut_with_a_note(page, name, lang):
    at = open_page(page, lang, **{name: "你好" * 2500})
    note = t("link.text_cut", lang, name=name, n=5000, limit=MAX_TEXT_CHARS)
    assert note in [w.value for w in at.warning]
    assert not at.exception
    short = open_page(page, lang, **{name: "你好"})
    assert not [w.value for w in short.warning if w.value.startswith(note[:12])]
