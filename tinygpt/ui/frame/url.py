"""A page's view in its URL: one declarative table per page, read and written by one pair of functions.

Each page lists its query parameters as :class:`Param` rows: the name, how to read the raw text into
session values (the widgets' keys) and how to write the session back as text. The pure parsing
and formatting live in ``tinygpt.training.links`` and ``tinygpt.numbers`` (tested without Streamlit); a
row only connects them to session keys.

- :func:`load` runs before the page's widgets. A parameter whose text this session did not write
  itself (a link was opened, or its address edited) is read into the session; a refused value
  leaves the widget as it was (its default on the page's first visit) and returns a message in
  the user's language naming the value and what is accepted, and saying which of the two. Values
  this session wrote are not read again, so a page switch (which clears the address) and the way
  back keep what the student chose: the widgets keep their values (``persist_state="session"``)
  and :func:`save` writes them back.
- :func:`save` runs after the widgets and writes every parameter the view has (and removes the
  ones it no longer has). The browser replaces its history entry for a change of the query string
  (``tinygpt.ui.frame.style.REPLACE_HISTORY_JS``, part of every page), so Back goes to the previous
  page, not to the previous switch.
- The app-wide parameters (the language, a lesson, a class, a short link, the secrets ``me=`` and
  ``key=``) are rows of ``tinygpt.ui.frame.app_params``: :func:`app_param` reads one (and takes a secret
  out of the address), :func:`put` and :func:`drop` write one. :func:`query` is the whole query
  (the view a link carries along), :func:`peek` one page parameter's text without reading it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from tinygpt.config import ConfigError
from tinygpt.params import MAX_TEXT_CHARS, read_text
from tinygpt.ui.frame.app_params import APP_PARAMS, AppParam
from tinygpt.ui.frame.app_session import app_session
from tinygpt.ui.frame.language import accepted_text, error_text, tr


@dataclass(frozen=True)
class Param:
    """One query parameter of a page.

    Attributes:
        name: the parameter's name in the URL.
        read: raw text -> {session key: value}; raises ConfigError for a value it refuses. It may
            append notes (messages in the user's language) to its second argument.
        write: the session state -> the parameter's text, or None to leave it out of the URL.
        message: the i18n key of the message for a refused value (:func:`refused`).
        after: the row reads the values the rows before it read (``read(raw, notes, view)``, the
            view being {session key: value}), as the score edits read the link's layer.
    """

    name: str
    read: Callable[..., Mapping[str, Any]]
    write: Callable[[Mapping[str, Any]], str | None]
    message: str = "link.bad_param"
    after: bool = False

    def read_in(self, raw: str, notes: list[str], view: Mapping[str, Any]) -> Mapping[str, Any]:
        """``read`` of ``raw`` in a view whose earlier rows gave ``view``."""
        return self.read(raw, notes, view) if self.after else self.read(raw, notes)


def field(name: str, key: str, read: Callable[[str], Any], write: Callable[[Any], str | None] = str) -> Param:
    """A parameter that is one widget's value: ``read(raw)`` gives the value of session key
    ``key`` (raising ConfigError to refuse it); ``write(value)`` its text (None: left out).
    A text longer than a link carries (:func:`tinygpt.params.read_text` keeps its start) gets a note."""

    def read_into(raw: str, notes: list[str]) -> Mapping[str, Any]:
        if read is read_text and len(raw) > MAX_TEXT_CHARS:
            notes.append(tr("link.text_cut", name=name, n=len(raw), limit=MAX_TEXT_CHARS))
        return {key: read(raw)}

    return Param(name, read_into, lambda ss: write(ss[key]))


#: The wording of a refusal on the page's first visit in the session, when nothing was shown before
#: that could stay: the page uses its default instead.
FIRST_VISIT = {"link.bad_param": "link.bad_param_first"}


def refused(param: Param, raw: str, exc: ConfigError, first: bool = False) -> str:
    """The message for a value of the link a page does not accept, in the user's language: the
    row's ``message`` with the parameter's ``name``, the refused ``value``, the ``error`` in words
    and what is ``accepted``; on the page's ``first`` visit its :data:`FIRST_VISIT` wording."""
    error = error_text(exc).rstrip(".。")
    key = FIRST_VISIT.get(param.message, param.message) if first else param.message
    return tr(key, name=param.name, value=exc.value, error=error, accepted=accepted_text(exc))


def _written() -> dict[tuple[str, str], str | None]:
    return app_session(st.session_state).url_written  # what each page last wrote: {(page, parameter): text}


def load(page: str, params: Sequence[Param]) -> list[str]:
    """Read the parameters of ``page`` that this session did not write into the session (every
    page's one reader, before its widgets).

    Returns the messages for refused values (:func:`refused`) and the rows' notes, in the order
    their parameters have in the URL (the order the person wrote them).
    """
    written, query, ss = _written(), st.query_params, st.session_state
    first = not any(k[0] == page for k in written)  # the session has not shown this page yet
    order = {name: n for n, name in enumerate(query)}
    said: list[tuple[int, list[str]]] = []  # (the parameter's place in the URL, its messages)
    for param in params:
        raw = query.get(param.name)
        if raw is None or written.get((page, param.name)) == raw:
            continue
        written[(page, param.name)] = raw  # read once: a refused value is not refused again
        messages: list[str] = []
        said.append((order.get(param.name, len(order)), messages))
        try:
            values = param.read_in(raw, messages, ss)
        except ConfigError as exc:
            messages.append(refused(param, raw, exc, first))
            continue
        for key, value in values.items():
            ss[key] = value
    return [m for _, messages in sorted(said, key=lambda s: s[0]) for m in messages]


def warn(messages: Sequence[str]) -> None:
    """The messages of a link (:func:`load`'s) in one warning box: one paragraph, or a list of
    several in their order, so many refused values do not push the page's controls down."""
    if len(messages) == 1:
        st.warning(messages[0])
    elif messages:
        st.warning("\n".join(f"- {m}" for m in messages))


def save(page: str, params: Sequence[Param]) -> None:
    """Write the session's view of ``page`` into the URL, only what changed (every page's one
    writer, after its widgets)."""
    written, query, ss = _written(), st.query_params, st.session_state
    # The new values go in with one update: each write of st.query_params sends the browser the
    # whole query string, which it puts in its history and redraws the app's frame for, and a
    # page's first run sets about ten parameters.
    changed: dict[str, str] = {}
    for param in params:
        raw = param.write(ss)
        if raw is None:
            if param.name in query:
                del query[param.name]
        elif query.get(param.name) != raw:
            changed[param.name] = raw
        written[(page, param.name)] = raw
    if changed:
        query.update(changed)


def seed(page: str, view: Sequence[tuple[str, str]]) -> None:
    """Put each (name, text) of ``view`` into the URL unless ``page`` wrote that parameter in this
    session (its own value stands): on the page's first visit :func:`load` reads them as a link's.
    One update of the query for all of them."""
    written, query = _written(), st.query_params
    changed = {name: text for name, text in view if (page, name) not in written and query.get(name) != text}
    if changed:
        query.update(changed)


def forget(page: str, names: Sequence[str] = ()) -> None:
    """Read ``names`` (all of ``page``'s parameters when empty) from the URL again on the next
    :func:`load`, as if a link had just been opened."""
    written = _written()
    for key in [k for k in written if k[0] == page and (not names or k[1] in names)]:
        del written[key]


def _row(name: str) -> AppParam:
    if name not in APP_PARAMS:
        raise KeyError(f"{name!r} is not an app-wide parameter: add its row to tinygpt.ui.frame.app_params")
    return APP_PARAMS[name]


def app_param(name: str) -> str | None:
    """The text of the app-wide parameter ``name`` in the URL (None: not there). A secret row
    (``me=``, ``key=``) leaves the address as it is read, so a copied address does not share it.

    Raises KeyError for a name that is not a row of ``tinygpt.ui.frame.app_params.APP_PARAMS``.
    """
    row = _row(name)
    raw = st.query_params.get(name)
    if raw is not None and row.secret:
        del st.query_params[name]
    return raw


def put(name: str, value: str) -> None:
    """Keep the app-wide parameter ``name`` at ``value`` in the URL (written only when it differs)."""
    _row(name)
    if st.query_params.get(name) != value:
        st.query_params[name] = value


def drop(name: str) -> None:
    """Take the app-wide parameter ``name`` out of the URL (nothing when it is not there)."""
    _row(name)
    if name in st.query_params:
        del st.query_params[name]


def query() -> dict[str, str]:
    """The URL's whole query, {name: text} (a copy: the view a link or a page switch carries along)."""
    return st.query_params.to_dict()


def replace_query(params: Mapping[str, str]) -> None:
    """Replace the URL's whole query by ``params`` (a short link by the query it stands for)."""
    st.query_params.clear()
    st.query_params.update(params)


def peek(name: str) -> str | None:
    """The text of parameter ``name`` as the URL has it now, without reading it as a row of a page
    (:func:`load` still reads it): for a choice made before the page's rows are read."""
    return st.query_params.get(name)
