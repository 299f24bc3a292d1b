"""Claims about a link's model say where they hold: on this server or one sharing its class store; a
link made where the store cannot be reached says another computer may train other weights
(tinygpt.ui.teacher.class_link)."""

from __future__ import annotations

from helpers import open_link

from tinygpt.classroom.store_records import StoreError
from tinygpt.i18n import t
from tinygpt.strings.en import models as en_models
from tinygpt.strings.zh import models as zh_models


def test_no_sentence_promises_the_same_model_everywhere():
    for strings in (en_models.STRINGS, zh_models.STRINGS):
        for key in ("link.intro", "link.note_own"):
            text = strings[key]
            assert "server" in text or "服务器" in text, key
    assert "deterministic" not in en_models.STRINGS["link.intro"]


def test_the_link_popover_says_where_its_model_is_the_same(store, monkeypatch):
    from tinygpt.ui.teacher import class_link

    class_link._store_reachable.clear()
    page = open_link("predict")
    assert t("link.intro", "en") in [c.value for c in page.caption]

    def unreachable(self, write=False):
        raise StoreError("store.unreachable", "down", reason="connection refused")

    monkeypatch.setattr(type(store), "check", unreachable)
    class_link._store_reachable.clear()
    page = open_link("predict")
    captions = [c.value for c in page.caption]
    assert t("link.intro_no_store", "en") in captions and t("link.intro", "en") not in captions
    class_link._store_reachable.clear()
