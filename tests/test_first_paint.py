"""A session's first page says at once that it is opening (a fresh server needs seconds before
the page itself is drawn), and the line is gone once the page is there. The timing on a phone
is ``python -m bench.cold_start --phone-only``."""

from __future__ import annotations

import pytest
from helpers import run_coroutine
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import t
from tinygpt.ui.frame.app_session import app_session


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_opening_line_is_cleared_when_the_first_page_is_drawn(lang):
    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    assert app_session(at.session_state).painted is True
    assert t("app.loading", lang) not in [c.value for c in at.caption]
    assert at.title[0].value == t("train.title", lang)  # the page itself is there


def _first_run_elements(url: str, query: str) -> list[tuple[str, str]]:
    """(element type, its text) of every element a new session's first script run sends, in order."""
    import asyncio

    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from bench import st_client

    async def run() -> list[tuple[str, str]]:
        async with st_client.connect(url) as ws:
            msg = BackMsg()
            msg.rerun_script.query_string = query
            msg.rerun_script.widget_states.SetInParent()
            await ws.send(msg.SerializeToString())
            elements = []
            while True:
                fwd = ForwardMsg()
                fwd.ParseFromString(await asyncio.wait_for(ws.recv(), timeout=st_client.RUN_TIMEOUT_S))
                kind = fwd.WhichOneof("type")
                if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    element = fwd.delta.new_element
                    kind_of = element.WhichOneof("type")
                    body = getattr(getattr(element, kind_of), "body", "") if kind_of else ""
                    elements.append((kind_of, body if isinstance(body, str) else ""))
                elif kind == "script_finished":
                    return elements

    return run_coroutine(run())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_opening_line_is_the_first_element_a_new_session_is_sent(app_server, lang):
    # Nothing the run does before it (the style sheet, the page list, the imports) delays it: its
    # placeholder is the run's first element, the line in it. (On a warm server the page may be
    # drawn so soon that Streamlit's queue replaces the unsent line by the emptied placeholder.)
    elements = _first_run_elements(app_server, f"lang={lang}")
    kinds = [kind for kind, _ in elements]
    assert elements[0] in [("markdown", t("app.loading", lang)), ("empty", "")], elements[:5]
    style_sheet = kinds.index("html")
    assert set(kinds[:style_sheet]) <= {"markdown", "empty"}, elements[: style_sheet + 1]
    assert ("markdown", t("app.loading", lang)) not in elements[style_sheet:]


def test_the_preload_warms_the_first_runs_one_offs_before_torch_with_a_short_switch_interval(monkeypatch):
    import sys

    from streamlit import delta_generator

    from tinygpt.ui.frame import server

    seen = []
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    monkeypatch.setattr(server, "preload", lambda: seen.append((sys.getswitchinterval(), "PIL.Image" in sys.modules)))
    default = sys.getswitchinterval()
    server._preload_in_background()
    assert seen == [(server.PRELOAD_SWITCH_INTERVAL_S, True)]  # warmed first, then the imports, GIL handed over often
    assert delta_generator._use_warning_has_been_displayed  # Streamlit's REPL check (inspect.stack) is done
    assert sys.getswitchinterval() == default  # restored for the script runs


def test_no_page_relies_on_streamlit_magic_which_the_config_turns_off():
    # Magic would wrap a bare expression in st.write; the pages have none, so turning it off (it
    # costs most of each page's compile) draws exactly the same pages.
    import ast
    import tomllib
    from pathlib import Path

    from streamlit.runtime.scriptrunner import magic

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False
    scripts = [root / "streamlit_app.py", *sorted((root / "pages").glob("*.py"))]
    assert len(scripts) >= 5
    for path in scripts:
        source = path.read_text(encoding="utf-8")
        plain = ast.parse(source)
        magicked = magic.add_magic(source, str(path))
        added = [node for node in ast.walk(magicked) if isinstance(node, ast.Call)]
        assert len(added) == len([node for node in ast.walk(plain) if isinstance(node, ast.Call)]), path.name
