"""The app-wide URL parameters (the language, a lesson, a class, a short link, the secrets ``me=``
and ``key=``) are the rows of one table, ``tinygpt.ui.frame.app_params``, and only ``tinygpt.ui.frame.url``
touches ``st.query_params``: a line elsewhere that does says why on the line."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from tinygpt.classroom.class_links import LESSON_KEYS, PRIVATE_PARAMS
from tinygpt.config import ConfigError
from tinygpt.i18n import CATALOGUE
from tinygpt.ui.frame import url
from tinygpt.ui.frame.app_params import APP_PARAMS
from tinygpt.ui.views.lesson import LESSON_PARAMS

ROOT = Path(__file__).resolve().parent.parent
UI_FILES = sorted([*(ROOT / "tinygpt" / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "streamlit_app.py"])


def _query_params_lines(path: Path) -> list[int]:
    """The lines of ``path`` whose code uses ``st.query_params`` (a comment naming it does not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr == "query_params"
            and isinstance(node.value, ast.Name)
            and node.value.id == "st"
        }
    )


def test_only_the_url_module_touches_st_query_params_and_every_other_use_says_why_on_its_line():
    by_hand = {}
    for path in UI_FILES:
        if path == ROOT / "tinygpt" / "ui" / "frame" / "url.py":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for n in _query_params_lines(path):
            by_hand[f"{path.relative_to(ROOT)}:{n}"] = lines[n - 1]
    # the language: tinygpt.ui.frame.url imports tinygpt.ui.frame.language for its messages
    assert {k.rsplit(":", 1)[0] for k in by_hand} == {"tinygpt/ui/frame/language.py"}
    assert len(by_hand) == 2
    unexplained = {k: line for k, line in by_hand.items() if "#" not in line or len(line.split("#", 1)[1].strip()) < 20}
    assert not unexplained
    assert _query_params_lines(ROOT / "tinygpt" / "ui" / "frame" / "url.py")  # the scan sees a use where there is one


def _string_args_of(functions: set[str]) -> dict[str, list[str]]:
    """{parameter name: files} of the string literals passed to ``url.<function>`` or ``<function>``."""
    named: dict[str, list[str]] = {}
    for path in UI_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Constant):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in functions:
                named.setdefault(node.args[0].value, []).append(str(path.relative_to(ROOT)))
    return named


def test_every_app_wide_parameter_the_app_reads_or_writes_is_a_row_of_the_table():
    used = _string_args_of({"app_param", "put", "drop"})
    assert {"lang", "class", "me", "key", "s", "from"} <= set(used)  # the scan finds them (a lesson: LESSON_PARAMS)
    assert set(used) <= set(APP_PARAMS), set(used) - set(APP_PARAMS)
    assert {*PRIVATE_PARAMS, *LESSON_KEYS, *LESSON_PARAMS, "lang"} <= set(APP_PARAMS)


def test_each_row_names_its_reading_function_its_message_and_whether_it_is_a_secret():
    secrets = {name for name, row in APP_PARAMS.items() if row.secret}
    assert secrets == {"me", "key"} and secrets <= set(PRIVATE_PARAMS)  # never carried into a link for others
    for row in APP_PARAMS.values():
        module, function = row.read_by.split(":")
        assert callable(getattr(importlib.import_module(module), function)), row.read_by
        assert row.message is None or row.message in CATALOGUE, row.message
    for name in ("class", "s", "me", "key"):  # a pure reader refuses a value the app never makes
        with pytest.raises(ConfigError):
            APP_PARAMS[name].reader("not a code!")
    assert APP_PARAMS["class"].reader(" k7m2qp ") == "K7M2QP"
    assert APP_PARAMS["lang"].reader("fr", "en-US") == "en"  # an unknown language: the browser's


class Query(dict):
    """A stand-in for ``st.query_params`` that counts the writes Streamlit sends the browser."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.writes = 0

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.writes += 1

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self.writes += 1

    def to_dict(self) -> dict[str, str]:
        return dict(self)


def test_a_secret_leaves_the_address_as_it_is_read_and_the_others_stay(monkeypatch):
    query = Query({"lang": "en", "class": "K7M2QP", "key": "s3cret", "me": "tok", "text": "abc"})
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query))
    assert url.app_param("class") == "K7M2QP" and url.app_param("lang") == "en"
    assert url.app_param("key") == "s3cret" and url.app_param("me") == "tok"
    assert url.query() == {"lang": "en", "class": "K7M2QP", "text": "abc"}
    assert url.app_param("key") is None and url.app_param("s") is None
    with pytest.raises(KeyError, match="app_params"):
        url.app_param("text")  # a page's parameter: read by the page's table (url.load)
    assert url.peek("text") == "abc"


def test_put_writes_only_a_change_and_drop_only_what_is_there(monkeypatch):
    query = Query({"class": "K7M2QP"})
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query))
    url.put("class", "K7M2QP")
    url.drop("s")
    assert query.writes == 0
    url.put("lang", "zh")
    url.drop("class")
    assert dict(query) == {"lang": "zh"} and query.writes == 2
    with pytest.raises(KeyError):
        url.put("tau", "2")
