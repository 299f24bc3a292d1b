"""The app's navigation over its pages (``tinygpt.ui.frame.page_list``), run by the entry script and by
the guard every page calls first.

Streamlit runs its legacy multipage mode while a ``pages/`` folder sits beside the entry script: on
a fresh server whose first request is a deep link (``/attention?text=…``) it runs the page file
alone, without ``streamlit_app.py`` (no language switch, the file names as the menu). That mode ends
for the whole process as soon as any script run calls ``st.navigation``. So the entry script marks
each run it makes (:func:`run_app`), and a page that finds no mark runs the entry script's work
itself, in the same script run: language switch, ``st.navigation`` over the app's pages (which ends
the legacy mode) and the page the URL names, with its query parameters and any widget event of
this run; then it stops its own, bypassing run. (Streamlit's AppTest resets the mode before every
run, so there every run of a page chosen with ``switch_page`` takes this path.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from tinygpt.i18n import t
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_session import app_session
from tinygpt.ui.frame.glossary import glossary
from tinygpt.ui.frame.language import lang, language_switch, likely_lang, tr
from tinygpt.ui.frame.page_list import LESSON_START, PAGES, PROJECTOR_PAGE, TEACHER_PAGE
from tinygpt.ui.frame.server import preload
from tinygpt.ui.frame.style import style_sheet
from tinygpt.ui.views.lesson import lesson, lesson_note

#: The browser tab's icon: Material Symbols Rounded ``grid_on`` (the Attention page's icon), drawn
#: 64 × 64 in the theme's primary colour from the font Streamlit bundles. Streamlit serves an image
#: file as ``/media/…`` from the app's own server; a ``:material/…:`` page icon would make every
#: browser fetch an SVG from fonts.gstatic.com, which some school networks block.
PAGE_ICON = Path(__file__).parent / "assets" / "page_icon.png"


#: Pages whose fragments change the view in the URL (Attention's step and switches, Predict's
#: panels and generation, Theory's examples) without redrawing the sidebar: their "link for my
#: class" popover reruns when it opens, so its link is the view as it stands. The Train page's
#: only fragment (the training's progress) changes no view, and there a popover that reruns kept
#: a checkpoint upload's rerun from finishing (tests/test_browser_train.py), so it keeps the link
#: of its last run.
FRAGMENT_VIEW_PAGES = frozenset({"attention", "predict", "theory"})


def _listed() -> list[tuple[str, str, str, str]]:
    """The entries of PAGES the navigation lists: all, or those the session's lesson names."""
    current = lesson()
    return [page for page in PAGES if current is None or current.page_shown(page[3])]


def _lesson_start() -> None:
    """The root URL of a lesson: open the first page the lesson lists, with the link's query
    parameters (the view a teacher's link sets, e.g. the Attention page's ``step=``, ``tau=``)."""
    st.switch_page(_listed()[0][0], query_params=url.query())


def _first_page() -> None:
    """The first page's own URL path (``/train``): Streamlit serves a default page at the root only,
    so a typed ``/train`` would find no page and open an English "Page not found" box; this hidden
    page opens the root instead, with the link's query parameters."""
    st.switch_page(PAGES[0][0], query_params=url.query())


def _not_in_lesson(key: str) -> Callable[[], None]:
    """A page of the app the lesson does not list (its title's i18n ``key``), opened by its path:
    the lesson says so in the student's language and links its first page, instead of
    Streamlit's English "Page not found" box."""

    def not_in_lesson() -> None:
        path, first, icon, _ = _listed()[0]
        st.info(tr("lesson.not_in_lesson", page=tr(key), first=tr(first)), icon=":material/school:")
        st.page_link(path, label=tr(first), icon=icon, query_params=url.query())

    return not_in_lesson


def app_pages() -> list[st.Page]:
    """The pages as ``st.Page`` objects, titled in the session's language.

    Without a lesson: every page, the first the default (the root URL, and its own path too,
    through :func:`_first_page`). With a teacher's lesson
    link (``tinygpt.ui.views.lesson``): the pages it names, each under its own URL path, a default
    page that opens the first of them, and the other pages' paths, which say that the lesson
    leaves them out (:func:`_not_in_lesson`). (A default page's URL is the root only, so a link such as
    ``/predict?lesson=1&pages=predict`` would not find Predict if it were the default.)
    """
    if lesson() is None:
        (path, key, icon, url_path), *others = PAGES
        return [
            st.Page(path, title=tr(key), icon=icon, url_path="", default=True),  # the root URL
            *(st.Page(path, title=tr(key), icon=icon, url_path=url_path) for path, key, icon, url_path in others),
            st.Page(_first_page, title=tr(key), url_path=url_path, visibility="hidden"),
        ] + [
            st.Page(path, title=tr(key), url_path=url_path, visibility="hidden")
            for path, key, _, url_path in (TEACHER_PAGE, PROJECTOR_PAGE)
        ]
    listed = _listed()
    start = st.Page(_lesson_start, title=tr(listed[0][1]), url_path=LESSON_START, default=True)
    return (
        [start]
        + [st.Page(path, title=tr(key), icon=icon, url_path=url_path) for path, key, icon, url_path in listed]
        + [
            st.Page(_not_in_lesson(page[1]), title=tr(page[1]), url_path=page[3], visibility="hidden")
            for page in PAGES
            if page not in listed  # its path says that the lesson leaves it out
        ]
    )


def _lesson_navigation() -> None:
    """The sidebar's list of a lesson's pages (Streamlit's own would list the start page too)."""
    for path, key, icon, _ in _listed():
        st.page_link(path, label=tr(key), icon=icon)


def run_app() -> None:
    """What ``streamlit_app.py`` does: page config, example-model warm-up, language switch, the
    lesson note (above every page), the model a link asks for, navigation, and the "link for my
    class" in the sidebar."""
    st.set_page_config(page_title="Tiny GPT Explorer", page_icon=PAGE_ICON, layout="wide")
    # A session's first page says at once that it is coming: on a fresh server the imports below
    # (torch) and the first page's models take seconds, and a phone would show an empty page. It is
    # the first element of the run, so nothing before it waits (the page's own elements follow it).
    loading, first = st.empty(), not app_session().painted
    if first:
        loading.caption(t("app.loading", likely_lang()))  # a short link below may still set the language
    if url.app_param("s") is not None:  # a short link: the query it stands for, before anything reads the URL
        from tinygpt.ui.classwork.short_links import open_short_link  # heavy: the class store (SQLAlchemy)

        open_short_link()
    # the style sheet and the scripts: lang attribute, keyboard access to boxes that scroll, ← / → for steps
    st.html(
        style_sheet(
            lang(), tr("app.formula_label"), tr("app.table_label"), tr("app.scrolls_sideways"), tr("app.upload_button")
        ),
        unsafe_allow_javascript=True,
    )
    in_lesson = lesson() is not None
    # The page list first, before anything imports torch: on a fresh server's first request
    # Streamlit's legacy mode has already sent its own menu of file names, which this replaces.
    page = st.navigation(app_pages(), position="hidden" if in_lesson else "sidebar")
    from tinygpt.ui.choice.model_choice import resolve_link  # heavy: torch (the models), after the page list
    from tinygpt.ui.classwork.short_links import follow_short_link  # heavy: the class store (SQLAlchemy)
    from tinygpt.ui.classwork.student import student_session  # heavy: the class store (SQLAlchemy)
    from tinygpt.ui.shared.models import start_default_model  # heavy: torch, after the page list
    from tinygpt.ui.teacher.class_link import class_link  # heavy: torch (the models), after the page list

    follow_short_link(page.url_path, {p[3]: p[0] for p in PAGES})  # a resume link's page
    nav_box = st.sidebar.container() if in_lesson else None  # above the language switch, as Streamlit's own
    language_switch()
    glossary()  # the app's terms, a tap away on every page
    lesson_note(page.url_path)
    student_session(page.url_path)  # the student's answers and class; "my answers" in the sidebar
    resolve_link()  # ?model= / ?train= of a link just opened (before the page reads the model)
    from tinygpt.ui.follow import class_period  # heavy: torch (the class period's models)

    class_period(page.url_path, {p[3]: p[0] for p in PAGES})  # the teacher leads: the class's view, its question
    app_session().entry_ran = True  # the page's guard (ensure_entry_script) takes the mark
    if nav_box is not None:
        with nav_box:
            _lesson_navigation()
            st.divider()
    slot = st.sidebar.empty()  # above whatever the page puts in the sidebar
    with slot.container():  # the link as the URL stands, kept if the page stops itself (st.stop)
        class_link(page.url_path, [p[3] for p in PAGES])
    if first:  # the libraries and the app's modules imported (at the server's start, or now): the page draws at once
        preload()
        loading.empty()
        app_session().painted = True  # no "loading" line any more
    page.run()
    with slot.container():  # after the page: the link holds the view it wrote into the URL in this run
        class_link(page.url_path, [p[3] for p in PAGES], fresh=page.url_path in FRAGMENT_VIEW_PAGES)
    # last, so this run's elements are not slowed by it (on one core its threads share the CPU with
    # the run): loads or trains the examples' models in background threads, once per process (a
    # page that needs one first starts it itself)
    start_default_model()


def ensure_entry_script() -> None:
    """First call of every page: run the app through :func:`run_app` if this run bypassed it.

    Returns when the entry script ran (the mark is consumed). Otherwise runs :func:`run_app`,
    which runs this page again inside it, and then stops this run (does not return).
    """
    if app_session().take_entry_ran():
        return
    run_app()
    st.stop()
