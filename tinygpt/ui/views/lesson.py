"""A teacher's link that locks the lesson: only the named pages and controls are shown.

URL format (query parameters; names are separated by commas, case does not matter)::

    ?lesson=1                      a lesson view (the note at the top of every page)
    &pages=predict,attention       the pages the navigation lists (URL paths of ``PAGES``)
    &show=attn_mask,attn_temperature  the only controls drawn (widget keys of LESSON_CONTROLS)
    &hide=predict_seed             controls not drawn (with ``show``: drawn = show minus hide)

Any one of ``lesson``, ``pages``, ``show``, ``hide`` makes the view a lesson (``lesson=0`` alone
does not). The link's other parameters (``step=``, ``guess=``, ``tau=``, ``prefix=``, …) are the view
its pages open on (:attr:`Lesson.view`): every page of the lesson starts on them on its first visit,
whichever page the lesson opens on, and they stay in the address while a page has not written its
own (:func:`lesson_note`), so a reload keeps them too. A hidden control is not drawn; the page uses
its value from the session (e.g. what the Attention page read from its own URL parameters) or its
default. The link is read once per
session (:func:`lesson`) and its parameters are written back to the address bar on every run,
so they survive page switches (``st.navigation`` clears the query string) and the language switch.
Unknown page or control names get a message naming them and listing the accepted ones.

How a page uses it: ``if visible(P_TAU): tau = st.slider(..., key=P_TAU)`` (keys of its table, ``predict_table``),
or :func:`control`, which also gives the hidden control's value; links to another page are drawn
only when ``page_shown("attention")``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import streamlit as st

from tinygpt.classroom.class_links import NOT_VIEW
from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text
from tinygpt.numbers import read_choice
from tinygpt.ui.frame import url
from tinygpt.ui.frame.controls import MODEL, defaults_of, lockable
from tinygpt.ui.frame.language import error_text, lang, md_escape, tr
from tinygpt.ui.frame.page_list import PAGES
from tinygpt.ui.frame.student_state import follow_session
from tinygpt.ui.views.attention_table import ATTENTION
from tinygpt.ui.views.predict_table import PREDICT
from tinygpt.ui.views.theory_table import THEORY
from tinygpt.ui.views.train_table import TRAIN

V = TypeVar("V")

LESSON_PARAMS: tuple[str, ...] = ("lesson", "pages", "show", "hide")
_STATE = "_lesson"
_OFF = ("0", "false", "off", "no")
#: The words ``lesson=`` accepts (case and spaces ignored): on or off.
LESSON_SWITCH: dict[str, bool] = {w: True for w in ("1", "true", "on", "yes")} | {w: False for w in _OFF}
#: Names read from each of ``pages``, ``show`` and ``hide`` (there are far fewer pages and controls).
MAX_LESSON_NAMES = 64
#: Parameters of a link that are not the view of a page (``tinygpt.classroom.class_links.NOT_VIEW``).
NOT_PAGE_VIEW = NOT_VIEW


#: Every page's table of state (``tinygpt.ui.frame.controls``), in the order of the app's pages.
PAGE_TABLES = (MODEL, PREDICT, ATTENTION, TRAIN, THEORY)
#: The controls a lesson link can show or hide: widget key -> (i18n key of its label, fields), the
#: labelled rows of the pages' tables.
LESSON_CONTROLS: dict[str, tuple[str, dict[str, object]]] = lockable(*PAGE_TABLES)
_PLAIN_DEFAULTS = {k: v for table in PAGE_TABLES for k, v in defaults_of(table).items()}


@dataclass(frozen=True)
class Lesson:
    """What a teacher's link keeps visible.

    Attributes:
        pages: URL paths of the pages listed, in the app's order; empty means every page.
        show: the only controls drawn; empty means every control not in ``hide``.
        hide: controls not drawn.
        bad_pages, bad_controls: names in the link the app does not have, as a message shows
            them (``tinygpt.formatting.shown_text``: shortened, invisible characters named).
        bad_values: the refused values of other parameters (``lesson=`` not one of
            ``LESSON_SWITCH``), each a ConfigError naming it.
        params: the lesson's query parameters, normalised (written back to the URL).
        view: the link's parameters of the pages' views ({name: text} as pairs; not those of
            :data:`NOT_PAGE_VIEW`), which each page of the lesson reads on its first visit.
    """

    pages: tuple[str, ...] = ()
    show: frozenset[str] = frozenset()
    hide: frozenset[str] = frozenset()
    bad_pages: tuple[str, ...] = ()
    bad_controls: tuple[str, ...] = ()
    bad_values: tuple[ConfigError, ...] = ()
    params: tuple[tuple[str, str], ...] = (("lesson", "1"),)
    view: tuple[tuple[str, str], ...] = ()

    def visible(self, key: str) -> bool:
        """True when control ``key`` is drawn in this lesson."""
        return (not self.show or key in self.show) and key not in self.hide

    def page_shown(self, url_path: str) -> bool:
        """True when the navigation lists the page ``url_path``."""
        return not self.pages or url_path in self.pages


def _names(raw: str | None) -> list[str]:
    """Comma-separated names, trimmed and lower-cased, without empties or repeats; at most
    ``MAX_LESSON_NAMES`` of them (a longer list is cut: no page or control is that far down it)."""
    names = (n.strip().lower() for n in (raw or "").split(",", MAX_LESSON_NAMES)[:MAX_LESSON_NAMES])
    return list(dict.fromkeys(n for n in names if n))


def parse_lesson(
    params: Mapping[str, str], page_names: Sequence[str], controls: Collection[str] = tuple(LESSON_CONTROLS)
) -> Lesson | None:
    """The lesson a link's query parameters describe, or None when they describe none.

    Args:
        params: the query parameters: ``lesson``, ``pages``, ``show``, ``hide`` describe the
            lesson; the others but :data:`NOT_PAGE_VIEW` are its pages' view (:attr:`Lesson.view`).
        page_names: the app's page URL paths, in navigation order.
        controls: the lockable widget keys.
    Unknown names are kept in ``bad_pages``/``bad_controls`` (as a message shows them) and
    otherwise ignored; when no named page exists, every page is listed. ``lesson=`` is read by
    ``tinygpt.numbers.read_choice`` among ``LESSON_SWITCH``; another value still makes a lesson
    and is named in ``bad_values``.
    """
    present = {k: params[k] for k in LESSON_PARAMS if k in params}
    bad_values: list[ConfigError] = []
    switch = True
    if "lesson" in present:
        try:
            switch = bool(read_choice(present["lesson"], "lesson", LESSON_SWITCH))
        except ConfigError as exc:
            bad_values.append(exc)
    if not present or (set(present) == {"lesson"} and not switch):
        return None
    pages, show, hide = (_names(present.get(k)) for k in ("pages", "show", "hide"))
    bad_pages = tuple(shown_text(p) for p in pages if p not in page_names)
    bad_controls = tuple(shown_text(c) for c in show + hide if c not in controls)
    kept_pages = tuple(p for p in page_names if p in pages)
    normalised = [("lesson", "1")] + [
        (k, ",".join(v)) for k, v in (("pages", pages), ("show", show), ("hide", hide)) if v
    ]
    return Lesson(
        pages=kept_pages,
        show=frozenset(c for c in show if c in controls),
        hide=frozenset(c for c in hide if c in controls),
        bad_pages=bad_pages,
        bad_controls=bad_controls,
        bad_values=tuple(bad_values),
        params=tuple(normalised),
        view=tuple((k, v) for k, v in params.items() if k not in NOT_PAGE_VIEW),
    )


def lesson() -> Lesson | None:
    """This session's lesson, read from the URL on the session's first run (None: the full app)."""
    if _STATE not in st.session_state:
        params = {k: raw for k in LESSON_PARAMS if (raw := url.app_param(k)) is not None}
        view = {k: v for k, v in url.query().items() if k not in NOT_PAGE_VIEW}
        st.session_state[_STATE] = parse_lesson(params | view, [p[3] for p in PAGES])
    return st.session_state[_STATE]


def visible(key: str) -> bool:
    """True when control ``key`` is drawn; False when this session's lesson hides it, or the
    teacher leads the class and has not opened it.

    Raises KeyError for a key that is not in LESSON_CONTROLS (every lockable control is registered).
    """
    if key not in LESSON_CONTROLS:
        raise KeyError(f"{key!r} is not a lockable control; register it in LESSON_CONTROLS")
    opened = follow_session().open  # while a student follows the teacher: the controls the teacher opened
    if opened is not None and key not in opened:  # the teacher leads and has not opened this control
        return False
    current = lesson()
    return current is None or current.visible(key)


def control(key: str, draw: Callable[[], V], default: V | None = None) -> V:
    """Draw a control with ``draw()`` and return its value; when the lesson hides it, draw nothing
    and return its session value (set from the URL or by an earlier page), else ``default``, else
    its default in its page's table (``tinygpt.ui.frame.controls``)."""
    if visible(key):
        return draw()
    return st.session_state.get(key, _PLAIN_DEFAULTS.get(key) if default is None else default)


def who_flips() -> str:
    """Who changes the Attention page's switches, so no page asks for a switch it does not draw:
    ``"student"`` when at least one switch is drawn; else ``"teacher"`` while the student follows
    a class period (the teacher's switches reach the page), else ``"lesson"`` (a lesson link set
    them and shows none)."""
    if any(visible(k) for k, row in ATTENTION.items() if row.switch is not None):
        return "student"
    return "teacher" if led_live() else "lesson"


def led_live() -> bool:
    """True while the student follows the teacher in a class period: a locked control's value is
    the teacher's, set live (else a locked control's value is the lesson link's)."""
    return follow_session().open is not None


def page_shown(url_path: str) -> bool:
    """True when the navigation lists the page ``url_path`` (links to a page not listed would fail)."""
    current = lesson()
    return current is None or current.page_shown(url_path)


def _accepted_controls() -> str:
    """The lockable widget keys, page by page ("predict: predict_prefix, …; attn: …")."""
    by_page: dict[str, list[str]] = {}
    for key in LESSON_CONTROLS:
        by_page.setdefault(key.split("_")[0], []).append(key)
    return "; ".join(f"{page}: {', '.join(keys)}" for page, keys in by_page.items())


def lesson_note(url_path: str = "") -> None:
    """At the top of every page (``url_path``, before it runs): say the view is a lesson and how to
    leave it, name any bad names in the link, and keep the lesson's parameters in the address bar,
    with the lesson's view of every parameter the page has not written in this session (the page
    reads them on its first visit, as if the lesson's link had been opened on it; a reload finds
    them). While the student follows the teacher, the teacher's view counts, not the lesson's."""
    current = lesson()
    if current is None:
        return
    for name, value in current.params:
        url.put(name, value)
    if follow_session().open is None:
        url.seed(url_path, current.view)
    # A link with only the language opens the full app (a new tab, so the lesson stays here).
    st.info(tr("lesson.note", url=f"?lang={lang()}"), icon=":material/school:")
    for exc in current.bad_values:
        st.warning(error_text(exc))
    if current.bad_pages:
        st.warning(
            tr(
                "lesson.bad_pages",
                names=md_escape(", ".join(current.bad_pages)),
                accepted=", ".join(p[3] for p in PAGES),
            )
        )
    if current.bad_controls:
        # the widget keys a link accepts go behind the help icon: the teacher's business, not the student's
        st.warning(
            tr("lesson.bad_controls", names=md_escape(", ".join(current.bad_controls))),
            icon=":material/school:",
        )
        st.caption(tr("lesson.accepted_controls"), help=md_escape(_accepted_controls()))
