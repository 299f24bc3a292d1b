"""A session's first page says at once that it is opening (a fresh server needs seconds before
the page itself is drawn), and the line is gone once the page is there. The timing on a phone
is ``python -m bench.cold_start --phone-only``."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import t


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_opening_line_is_cleared_when_the_first_page_is_drawn(lang):
    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    assert at.session_state["_first_page_drawn"] is True
    assert t("app.loading", lang) not in [c.value for c in at.caption]
    assert at.title[0].value == t("train.title", lang)  # the page itself is there
