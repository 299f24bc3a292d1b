"""Who may open a class: the teacher's key kept out of the address bar, and guessing slowed per client.

The teacher's view is opened by ``/teacher?class=K7M2QP&key=…``. The key leaves the address on the
first run, in place (the history entry is replaced, so Back does not show it; the page a teacher
projects shows ``/teacher?class=K7M2QP`` only); it is kept in the session and, once it has opened the
class, in a cookie of this browser (named after the class, kept ``TINYGPT_TEACHER_HOURS``, 8 by
default: a school day), so a reload opens the class again. Streamlit gives a script no HTTP response
to put a ``Set-Cookie`` header on, so the cookie is written by the page's script and cannot be
HttpOnly. "Forget this device" takes the key out of the session and the cookie. Failed attempts (a
teacher's link that opens no class, a short link that does not exist, a class code that names no
class) are counted per client (:class:`tinygpt.classroom.guard.Attempts`); a client that fails too
often waits.
"""

from __future__ import annotations

import math

import streamlit as st

from tinygpt.classroom.guard import (
    DEFAULT_TEACHER_HOURS,
    Attempts,
    client_address,
    connection_peer,
    teacher_hours,
    trusted_proxies,
)
from tinygpt.classroom.store_values import CLASS_CODE_LEN, read_class_code
from tinygpt.config import ConfigError
from tinygpt.ui.frame import url
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.teacher_state import teacher_session

COOKIE_PREFIX = "tinygpt_teacher_"
_COOKIE_JS = (
    "<script>document.cookie = '{name}={value}; path=/; max-age={age}; SameSite=Strict'"
    " + (location.protocol === 'https:' ? '; Secure' : '');</script>"
)
#: Takes ``key=`` out of the address in place: the history entry is replaced, not added to.
_CLEAN_ADDRESS_JS = (
    "<script>(() => {{ const u = new URL(window.location.href);"
    " if (u.searchParams.has('key')) {{ u.searchParams.delete('key');"
    " window.history.replaceState(window.history.state, '', u.pathname + u.search + u.hash); }} }})();</script>"
)


def _normal(raw_code: str) -> str:
    return raw_code.strip().upper()


def browser_cookies() -> dict[str, str]:
    """The cookies this browser sent when the session started."""
    return dict(st.context.cookies or {})


def _forgotten() -> set[str]:
    """Class codes whose key this session was told to forget (this browser's cookie then counts no more)."""
    return teacher_session().forgotten


def remember_key(code: str, key: str) -> None:
    """Keep the teacher's ``key`` of class ``code`` in this session (the builder's new class)."""
    teacher_session().keys[code] = key
    _forgotten().discard(code)


def teacher_credentials() -> tuple[str | None, str | None]:
    """(``class=`` as given, the teacher's key for it, or None): ``key=`` in the address (then taken
    out of the address at once), else the key this session or this browser's cookie keeps."""
    raw_code, raw_key = url.app_param("class"), url.app_param("key")  # key= leaves the address (a secret row)
    if raw_key is not None:
        st.html(_CLEAN_ADDRESS_JS, unsafe_allow_javascript=True)
        if raw_code:
            remember_key(_normal(raw_code), raw_key)
        return raw_code, raw_key
    if raw_code is None:
        return None, None
    code = _normal(raw_code)
    kept = teacher_session().keys.get(code)
    if kept is None and code not in _forgotten():
        kept = browser_cookies().get(COOKIE_PREFIX + code)
    return raw_code, kept


def _hours() -> int:
    try:
        return teacher_hours()
    except ConfigError:  # logged at start-up
        return DEFAULT_TEACHER_HOURS


def keep_key_cookie(code: str, key: str) -> None:
    """Once the key has opened class ``code``: keep it in this browser's cookie (once per session)."""
    done = teacher_session().key_cookies
    if code in done or browser_cookies().get(COOKIE_PREFIX + code) == key:
        return
    done.add(code)
    script = _COOKIE_JS.format(name=COOKIE_PREFIX + code, value=key, age=_hours() * 3600)
    st.html(script, unsafe_allow_javascript=True)


def forget_device(code: str) -> bool:
    """The "forget this device" button of class ``code``. Clicked: the key leaves this session and this
    browser's cookie, the page says so and shows the class no more (True); else False."""
    helped = tr("teacher.forget_help", hours=_hours())
    if not st.button(tr("teacher.forget"), key=f"teacher_forget_{code}", icon=":material/logout:", help=helped):
        return False
    teacher_session().keys.pop(code, None)
    teacher_session().key_cookies.discard(code)
    _forgotten().add(code)
    st.html(_COOKIE_JS.format(name=COOKIE_PREFIX + code, value="", age=0), unsafe_allow_javascript=True)
    st.success(tr("teacher.forgotten", code=code), icon=":material/logout:")
    return True


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


def typed_code_problem(typed: str) -> str | None:
    """What is wrong with a class code a student typed, in the session's language: the value, its
    length and what a class code is (letters and digits, how many); None when it is one. Says nothing
    of whether the class exists (that is looked up, and counted, when the page opens it)."""
    try:
        read_class_code(typed)
    except ConfigError as exc:
        shown = typed.strip()
        return tr(
            "class.typed_bad",
            value=md_escape(str(exc.value).strip()),
            length=len(shown),
            accepted=tr("accepted.class_code", n=CLASS_CODE_LEN),
        )
    return None


def lookup_missed() -> None:
    """Count one look-up of a class code that named no class, for this client."""
    attempts("class").failed(client_id())
