"""A page's view goes into its URL with one write of the query string, however many of its
parameters changed: each write of ``st.query_params`` is a message to the browser, which puts the
whole query string in its history and redraws the app's frame for it."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

from tinygpt.i18n import t
from tinygpt.params import read_index
from tinygpt.ui.frame import url


class CountingQuery(dict):
    """A stand-in for ``st.query_params``: a dict that counts the writes Streamlit sends one message for."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.messages = 0

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.messages += 1

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self.messages += 1

    def update(self, other=(), **kwargs) -> None:
        for key, value in dict(other, **kwargs).items():
            super().__setitem__(key, value)
        self.messages += 1


def _params() -> list[url.Param]:
    return [url.field(name, f"k_{name}", str) for name in ("text", "step", "tau", "mask")]


def test_a_first_run_writes_every_parameter_with_one_message(monkeypatch):
    query = CountingQuery(lang="zh")
    state = {"k_text": "你好世界", "k_step": "softmax", "k_tau": "1", "k_mask": "on"}
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query, session_state=state))
    url.save("attention", _params())
    assert dict(query) == {"lang": "zh", "text": "你好世界", "step": "softmax", "tau": "1", "mask": "on"}
    assert query.messages == 1


def test_only_what_changed_is_written_and_nothing_when_nothing_changed(monkeypatch):
    query = CountingQuery(lang="en", text="abc", step="input", tau="1", mask="on")
    state = {"k_text": "abc", "k_step": "scores", "k_tau": "2", "k_mask": "on"}
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query, session_state=state))
    url.save("attention", _params())
    assert dict(query) == {"lang": "en", "text": "abc", "step": "scores", "tau": "2", "mask": "on"}
    assert query.messages == 1
    url.save("attention", _params())
    assert query.messages == 1  # the URL already holds the view


def test_a_refused_value_says_the_default_is_used_on_a_first_visit_and_the_view_stays_after(monkeypatch):
    monkeypatch.setattr(url, "tr", lambda key, **fields: t(key, "en", **fields))
    monkeypatch.setattr(url, "error_text", lambda exc: str(exc))
    monkeypatch.setattr(url, "accepted_text", lambda exc: t(f"accepted.{exc.key}", "en", **exc.params))
    query, state = CountingQuery(layer="9"), {"k_layer": 0}
    monkeypatch.setattr(url, "st", SimpleNamespace(query_params=query, session_state=state))
    params = [url.field("layer", "k_layer", partial(read_index, name="layer", count=2))]
    accepted = t("accepted.index_layer", "en", hi=1, last=2)  # the link's 0..1, the page's layers 1..2
    first = t("link.bad_param_first", "en", name="layer", value="9", accepted=accepted)  # nothing shown yet
    assert url.load("attention", params) == [first]
    url.save("attention", params)  # the page is shown: its layer is in the view
    query["layer"] = "5"  # then the address changes
    assert url.load("attention", params) == [t("link.bad_param", "en", name="layer", value="5", accepted=accepted)]
    assert state["k_layer"] == 0
