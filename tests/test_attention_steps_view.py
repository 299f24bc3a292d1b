"""The Attention page's step view from one step to the next: the same elements in the same places,
so the browser updates them in place.

AppTest drives the page with the textbook model, as tests/test_attention_page.py does.
"""

from __future__ import annotations

from helpers import open_page

from tinygpt.ui.attention import state as view


def open_attention(**params: str):
    params.setdefault("model", "textbook")
    return open_page("attention", "en", None, **params)


def step_view(at) -> list[str]:
    """The kinds of the elements the step part draws, in order: the block that holds the step
    buttons' row, from that row on (widgets by their key, other elements by their type)."""
    found: list[list[str]] = []

    def walk(node) -> None:
        children = list(getattr(node, "children", {}).values())
        keys = [getattr(c, "key", None) for c in children]
        if any(_holds(c, "attn_next") for c in children) and not any(k == "attn_next" for k in keys):
            found.append([getattr(c, "key", None) or c.type for c in children])
        for child in children:
            walk(child)

    walk(at.main)
    return found[-1]  # the innermost block whose child holds the buttons' row


def _holds(node, key: str) -> bool:
    if getattr(node, "key", None) == key:
        return True
    return any(_holds(c, key) for c in getattr(node, "children", {}).values())


def test_every_step_and_the_input_draw_the_same_elements_in_the_same_places():
    at = open_attention(step="input")
    views = {}
    for nav_id in view.NAV_IDS:
        assert at.select_slider(key=view.K_STEP).value == nav_id
        views[nav_id] = step_view(at)
        if nav_id != view.NAV_IDS[-1]:
            at.button(key="attn_next").click().run()
    shapes = {len(v) for v in views.values()}
    assert len(shapes) == 1, {k: len(v) for k, v in views.items()}
    # the heatmap, the table's expander and "for the curious" keep their places
    for name in ("vega_lite_chart", view.K_TABLE, view.K_CURIOUS):
        assert len({v.index(name) for v in views.values()}) == 1, name
    assert views["input"].count("empty") > views["scores"].count("empty") > 0  # placeholders, not elements
