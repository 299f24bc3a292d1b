"""Who may open a class: the teacher's key kept out of the address bar, and guessing slowed per client.

The teacher's view is opened by ``/teacher?class=K7M2QP&key=…``. The key leaves the address on the
first run (the page a teacher projects shows ``/teacher?class=K7M2QP`` only); it is kept in the
session and, once it has opened the class, in a cookie of this browser (named after the class,
kept as long as the answers), so a reload opens the class again. Failed attempts (a teacher's link
that opens no class, a short link that does not exist) are counted per client
(:class:`tinygpt.classroom.guard.Attempts`); a client that fails too often waits.
"""

from __future__ import annotations

import math

import streamlit as st

from tinygpt.classroom.guard import Attempts, client_address, connection_peer, trusted_proxies
from tinygpt.classroom.store import DEFAULT_ANSWER_DAYS, answer_days
from tinygpt.config import ConfigError
from tinygpt.ui.frame import url
from tinygpt.ui.frame.teacher_state import teacher_session

COOKIE_PREFIX = "tinygpt_teacher_"
_COOKIE_JS = (
    "<script>document.cookie = '{name}={value}; path=/; max-age={age}; SameSite=Strict'"
    " + (location.protocol === 'https:' ? '; Secure' : '');</script>"
)


def _normal(raw_code: str) -> str:
    return raw_code.strip().upper()


def browser_cookies() -> dict[str, str]:
    """The cookies this browser sent when the session started."""
    return dict(st.context.cookies or {})


def remember_key(code: str, key: str) -> None:
    """Keep the teacher's ``key`` of class ``code`` in this session (the builder's new class)."""
    teacher_session().keys[code] = key


def teacher_credentials() -> tuple[str | None, str | None]:
    """(``class=`` as given, the teacher's key for it, or None): ``key=`` in the address (then taken
    out of the address at once), else the key this session or this browser's cookie keeps."""
    raw_code, raw_key = url.app_param("class"), url.app_param("key")  # key= leaves the address (a secret row)
    if raw_key is not None:
        if raw_code:
            remember_key(_normal(raw_code), raw_key)
        return raw_code, raw_key
    if raw_code is None:
        return None, None
    code = _normal(raw_code)
    kept = teacher_session().keys.get(code) or browser_cookies().get(COOKIE_PREFIX + code)
    return raw_code, kept


def keep_key_cookie(code: str, key: str) -> None:
    """Once the key has opened class ``code``: keep it in this browser's cookie (once per session)."""
    done = teacher_session().key_cookies
    if code in done or browser_cookies().get(COOKIE_PREFIX + code) == key:
        return
    done.add(code)
    try:
        days = answer_days()
    except ConfigError:  # said where the store is used
        days = DEFAULT_ANSWER_DAYS
    script = _COOKIE_JS.format(name=COOKIE_PREFIX + code, value=key, age=int(days * 86400))
    st.html(script, unsafe_allow_javascript=True)


def client_id() -> str:
    """Who is trying, for counting failures: the browser's address (behind a proxy named in
    ``TINYGPT_TRUSTED_PROXIES``, the address that proxy added to ``X-Forwarded-For``), else the session."""
    try:
        proxies = trusted_proxies()
    except ConfigError:  # logged at start-up; no proxy is trusted
        proxies = ()
    headers = st.context.headers or {}
    forwarded = headers.get("X-Forwarded-For") or ""
    address = ""
    if headers:  # a browser's connection (a test's session has none)
        address = client_address(connection_peer(st.context.ip_address, forwarded), forwarded, proxies)
    if address:
        return address
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return "session:" + (ctx.session_id if ctx else "")


@st.cache_resource(show_spinner=False)
def attempts(kind: str) -> Attempts:
    """The process's count of failed attempts of ``kind`` ("teacher", "short", "class")."""
    return Attempts()


def lookup_wait_s() -> int:
    """Whole seconds this client must wait before the app says whether another class code exists
    (0: it may ask now). The projector's page and a student's ``?class=`` count their misses here."""
    return math.ceil(attempts("class").wait_s(client_id()))


def lookup_missed() -> None:
    """Count one look-up of a class code that named no class, for this client."""
    attempts("class").failed(client_id())
