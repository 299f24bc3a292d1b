"""What the app keeps between runs for every page, that no widget owns: what each page last wrote
to the URL (``tinygpt.ui.frame.url``), the entry script's mark and whether the first page was drawn
(``tinygpt.ui.navigation``), the short link last resolved and the page it names
(``tinygpt.ui.classwork.short_links``), a refused ``?lang=`` (``tinygpt.ui.frame.language``) and a
refused number (``tinygpt.ui.frame.number_input``). They live in one :class:`AppSession` under one
private key.

A leaf of the Streamlit layer (it imports no other UI module): the language and the URL read it
before any page module is imported.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st


@dataclass
class AppSession:
    """The app's own values for every page, as this browser session keeps them (no widget owns any of it)."""

    url_written: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (page, parameter) -> text
    entry_ran: bool = False  # the entry script ran this run (the page's guard takes the mark)
    painted: bool = False  # the session's first page was drawn: no "loading" line any more
    short_seen: str | None = None  # the s= value last resolved (None: none, or try it again)
    short_page: str | None = None  # the URL path of the page a resolved short link names, opened once
    lang_refused: str | None = None  # a ?lang= value the app does not have, said once by the switch
    lang_picked: bool = False  # the student picked a language this run: kept in a cookie for the next visit
    number_kept: dict[str, float] = field(default_factory=dict)  # a ranged input's key -> its value in use
    number_refused: dict[str, str] = field(default_factory=dict)  # a ranged input's key -> its refusal, said once

    def take_entry_ran(self) -> bool:
        """:attr:`entry_ran`, once (cleared as it is read)."""
        ran, self.entry_ran = self.entry_ran, False
        return ran

    def take_short_page(self) -> str | None:
        """:attr:`short_page`, once (cleared as it is read)."""
        page, self.short_page = self.short_page, None
        return page

    def take_lang_picked(self) -> bool:
        """:attr:`lang_picked`, once (cleared as it is read)."""
        picked, self.lang_picked = self.lang_picked, False
        return picked

    def take_number_refused(self, key: str) -> str | None:
        """The refusal of the number input ``key`` (``tinygpt.ui.frame.number_input``), once."""
        return self.number_refused.pop(key, None)

    def take_lang_refused(self) -> str | None:
        """:attr:`lang_refused`, once (cleared as it is read)."""
        refused, self.lang_refused = self.lang_refused, None
        return refused


#: The one session key the app's own values live under.
K_APP_SESSION = "_app"


def app_session(state: MutableMapping[str, Any] | None = None) -> AppSession:
    """This session's :class:`AppSession`, made on first use; ``state``: the session state to
    look in (default ``st.session_state``; a test passes its ``AppTest.session_state``)."""
    ss = st.session_state if state is None else state
    if K_APP_SESSION not in ss:
        ss[K_APP_SESSION] = AppSession()
    return ss[K_APP_SESSION]
