"""Browser test of the Attention page's live α heatmap: while τ is dragged (mouse held down) the
heatmap changes several times before the release, and the α it draws equals tinygpt's for the τ
the slider shows; the mask toggle redraws it with the unmasked α."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import assert_no_exception, wait_for_app
from helpers import served_example

from tinygpt import i18n
from tinygpt.attention import Switches
from tinygpt.examples import SEED_TEXT
from tinygpt.explanations.explain import trace_of
from tinygpt.i18n import t
from tinygpt.ui.attention.live_bridge import tau_class

pytestmark = pytest.mark.browser

SHOTS = Path("artifacts/screenshots/drag")
CHART = "[data-testid='stVegaLiteChart']"
#: The step's heatmap: the first chart with labelled cells (the softmax step's cell arithmetic is a
#: text chart).
HEAT = f"""Array.from(document.querySelectorAll("{CHART}")).find((c) => c.querySelector("svg path[aria-label]"))"""
#: The heatmap's cells as Vega-Lite labels them for screen readers: "key position j: 1 好; query
#: position i: 2 世; α: 0.71…" (masked cells have no α).
ALPHA_JS = f"""() => Array.from(({HEAT}).querySelectorAll("svg path[aria-label]"))
    .map((el) => el.getAttribute("aria-label")).filter((label) => label.includes("α: "))"""


#: Every text the page's charts draw (the cell's softmax row among them).
TEXTS_JS = f"""() => Array.from(document.querySelectorAll("{CHART} svg text")).map((el) => el.textContent)"""
#: True once the τ caption (a line of text whose τ the page's script keeps at the slider's) reads
#: ``caption`` and the charts draw every text of ``row``.
LIVE_TEXTS_JS = f"""([caption, row]) => {{
    const texts = new Set(({TEXTS_JS})());
    return document.querySelector(".{tau_class()}")?.parentElement.textContent === caption
        && row.every((text) => texts.has(text));
}}"""


def heat(page):
    """The step's heatmap (:data:`HEAT`) as a locator."""
    return page.locator(CHART).filter(has=page.locator("svg path[aria-label]")).first


def alpha_matrix(labels: list[str], T: int) -> np.ndarray:
    """The (T, T) α drawn (masked cells 0) from the cells' labels."""
    alpha = np.zeros((T, T))
    for label in labels:
        parts = dict(part.split(": ", 1) for part in label.split("; "))
        j = int(parts["key position j"].split()[0])
        i = int(parts["query position i"].split()[0])
        alpha[i, j] = float(parts["α"])
    return alpha


def drawn_alpha(page, expected: np.ndarray, T: int, err_msg: str = "", timeout_s: float = 10.0) -> np.ndarray:
    """The (T, T) α the heatmap draws once it equals ``expected`` (rtol 1e-4, atol 1e-6), polled every
    0.1 s: Vega draws a changed dataset asynchronously, later on a slower machine. Fails with the last
    drawing after ``timeout_s``."""
    for _ in range(int(timeout_s * 10)):
        drawn = alpha_matrix(page.evaluate(ALPHA_JS), T)
        if np.allclose(drawn, expected, rtol=1e-4, atol=1e-6):
            return drawn
        page.wait_for_timeout(100)
    np.testing.assert_allclose(drawn, expected, rtol=1e-4, atol=1e-6, err_msg=err_msg)
    return drawn


def own_alpha(temperature: float, causal_mask: bool = True) -> np.ndarray:
    """tinygpt's α of layer 0, head 0 for the textbook model's text (what the server computes)."""
    record = served_example("textbook")
    trace = trace_of(record.model, record.vocab.encode(SEED_TEXT)[None], 0)
    sw = Switches(temperature=temperature, causal_mask=causal_mask)
    return trace.with_switches(sw).state["alpha"][0, 0].double().numpy()


def test_dragging_tau_redraws_alpha_before_the_release_with_tinygpts_numbers(app_server, page):
    T = len(SEED_TEXT)
    page.set_viewport_size({"width": 1280, "height": 2400})  # the switches and the heatmap both in view
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&layer=0&head=0")
    wait_for_app(page, 240_000)
    page.locator(f"{CHART} svg").first.wait_for(timeout=60_000)
    page.wait_for_function(f"() => ({ALPHA_JS})().length === {T * (T + 1) // 2}", timeout=60_000)
    np.testing.assert_allclose(alpha_matrix(page.evaluate(ALPHA_JS), T), own_alpha(1.0), atol=1e-5)
    texts = f"() => Array.from(({HEAT}).querySelectorAll('svg text')).map((el) => el.textContent)"
    assert i18n.t("attn.masked", "en") in page.evaluate(texts)  # the grey cells' legend entry

    box = page.locator(".st-key-attn_temperature")
    value = box.locator("input[type=range]")
    thumb = value.locator("xpath=../..")
    t = thumb.bounding_box()
    track = box.locator("[role=group] > div").first.bounding_box()
    y = t["y"] + t["height"] / 2
    SHOTS.mkdir(parents=True, exist_ok=True)
    seen: dict[str, np.ndarray] = {}
    page.evaluate(f'() => {{ ({HEAT}).querySelector("svg").tgMark = 1; }}')
    page.mouse.move(t["x"] + t["width"] / 2, y)
    page.mouse.down()
    # from τ = 1 towards the left end (small τ: sharp rows), then to the right end (flat rows)
    for k, frac in enumerate((0.45, 0.3, 0.2, 0.05, 0.7, 0.8, 0.95)):
        page.mouse.move(track["x"] + frac * track["width"], y, steps=3)
        page.wait_for_timeout(200)  # the slider's own update of its value
        tau = float(value.get_attribute("aria-valuetext"))
        page.wait_for_function(  # the heatmap answers in the browser; the server has not been told
            f"() => document.getElementById('tg-live-attn-tau')?.value === '{tau:g}'", timeout=10_000
        )
        drawn = drawn_alpha(page, own_alpha(tau), T, err_msg=f"τ = {tau}")
        assert np.allclose(drawn.sum(axis=1), 1.0, atol=1e-9) and drawn[np.triu_indices(T, 1)].max() == 0
        # the τ caption and the picked cell's row (the last query, a text chart): the dragged τ's
        row = sorted({f"{a:.4g}" for a in own_alpha(tau)[T - 1] if "e" not in f"{a:.4g}"})
        page.wait_for_function(LIVE_TEXTS_JS, arg=[i18n.t("attn.tau_now", "en", tau=tau), row], timeout=10_000)
        if f"{tau:g}" not in seen:
            heat(page).screenshot(path=str(SHOTS / f"{k}_tau_{tau:g}.png"))
            page.locator(CHART).filter(has_text="Σ =").first.screenshot(path=str(SHOTS / f"{k}_row_tau_{tau:g}.png"))
        seen[f"{tau:g}"] = drawn
    distinct = {tuple(np.round(a, 6).ravel()) for a in seen.values()}
    assert len(distinct) >= 4, sorted(seen)
    page.mouse.up()
    wait_for_app(page)
    last = float(value.get_attribute("aria-valuetext"))
    page.get_by_text(f"τ = {last:g}").first.wait_for(timeout=60_000)  # the server's caption, after the release
    np.testing.assert_allclose(alpha_matrix(page.evaluate(ALPHA_JS), T), own_alpha(last), rtol=1e-4, atol=1e-6)
    # the rerun sent the same spec: the browser kept its chart (only the data changed), no new SVG
    assert page.evaluate(f'() => ({HEAT}).querySelector("svg").tgMark') == 1

    value.focus()  # the arrow keys: the heatmap follows at once, and the server after its rerun
    page.keyboard.press("ArrowLeft")
    tau = float(value.get_attribute("aria-valuetext"))
    assert tau < last
    page.wait_for_function(f"() => document.getElementById('tg-live-attn-tau')?.value === '{tau:g}'", timeout=10_000)
    drawn_alpha(page, own_alpha(tau), T)
    wait_for_app(page)
    last = tau

    page.locator(".st-key-attn_mask label").first.click()
    page.wait_for_function(f"() => ({ALPHA_JS})().length === {T * T}", timeout=10_000)  # no masked cell left
    np.testing.assert_allclose(alpha_matrix(page.evaluate(ALPHA_JS), T), own_alpha(last, False), rtol=1e-4, atol=1e-6)
    assert i18n.t("attn.masked", "en") not in page.evaluate(texts)  # no "masked" legend entry with nothing masked
    wait_for_app(page)
    assert_no_exception(page)


def test_theorys_matrix_heatmap_follows_the_tau_drag_before_the_release(app_server, page):
    from tinygpt.explanations import theory

    page.set_viewport_size({"width": 1280, "height": 2400})
    page.goto(f"{app_server}/theory?lang=en&section=attention")
    wait_for_app(page, 240_000)
    title = t("theory.mx.chart_title", "en")
    # the title's formula may be cut short in a narrow chart: its first words pick the chart
    chart = page.locator(CHART).filter(has_text=title.rsplit(" ", 1)[0]).first
    chart.wait_for(timeout=60_000)
    labels_js = (
        """(el) => Array.from(el.querySelectorAll("svg path[aria-label]")).map((p) => p.getAttribute("aria-label"))"""
    )
    box = page.locator(".st-key-theory_tau")
    value = box.locator("input[type=range]")
    thumb = value.locator("xpath=../..").bounding_box()
    track = box.locator("[role=group] > div").first.bounding_box()
    y = thumb["y"] + thumb["height"] / 2
    K = np.array(theory.EXAMPLE_KEYS)
    masked = page.locator(".st-key-theory_mask input").first.is_checked()
    pictures = set()
    page.mouse.move(thumb["x"] + thumb["width"] / 2, y)
    page.mouse.down()
    for frac in (0.15, 0.05, 0.4, 0.9):
        page.mouse.move(track["x"] + frac * track["width"], y, steps=3)
        page.wait_for_timeout(200)  # the slider's own update of its value
        tau = float(value.get_attribute("aria-valuetext"))
        live = "document.getElementById('tg-live-theory-mx-tau')?.value"
        page.wait_for_function(f"() => +{live} === {tau}", timeout=10_000)
        page.wait_for_timeout(300)
        labels = chart.evaluate(labels_js)
        expected = np.asarray(
            theory.attention_matrix(K, K, theory.EXAMPLE_VALUES, temperature=tau, causal_mask=masked).weights
        )
        got = {
            (lab.split("; ")[1], lab.split("; ")[0]): float(lab.rsplit(": ", 1)[1])
            for lab in labels
            if lab.count(": ") == 3
        }
        assert len(got) == (6 if masked else 9), labels  # a masked cell has no α
        drawn = np.array(
            [
                [
                    got.get(
                        (
                            f"{t('theory.mx.axis_query', 'en')}: token {i}",
                            f"{t('theory.mx.axis_key', 'en')}: token {j}",
                        ),
                        0.0,
                    )
                    for j in range(3)
                ]
                for i in range(3)
            ]
        )
        np.testing.assert_allclose(drawn, expected, rtol=1e-4, atol=1e-6, err_msg=f"τ = {tau}")
        pictures.add(tuple(np.round(drawn, 6).ravel()))
    assert len(pictures) >= 3
    page.mouse.up()
    wait_for_app(page)
    assert_no_exception(page)


def test_a_touch_drag_of_tau_redraws_alpha_before_the_finger_lifts(app_server, browser):
    T = len(SEED_TEXT)
    context = browser.new_context(viewport={"width": 1280, "height": 2400}, locale="en-US", has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&layer=0&head=0")
        wait_for_app(page, 240_000)
        page.wait_for_function(f"() => ({ALPHA_JS})().length === {T * (T + 1) // 2}", timeout=60_000)
        box = page.locator(".st-key-attn_temperature")
        value = box.locator("input[type=range]")
        t0 = value.locator("xpath=../..").bounding_box()
        track = box.locator("[role=group] > div").first.bounding_box()
        x, y = t0["x"] + t0["width"] / 2, t0["y"] + t0["height"] / 2
        cdp = context.new_cdp_session(page)

        def touch(kind: str, x: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", x)
        seen = set()
        for frac in (0.35, 0.15, 0.8):
            for step in range(1, 6):  # a finger moves in small steps
                x += (track["x"] + frac * track["width"] - x) * step / 5
                touch("touchMove", x)
            page.wait_for_timeout(500)  # the touch events are handled after they are sent
            tau = float(value.get_attribute("aria-valuetext"))
            page.wait_for_function(f"() => document.getElementById('tg-live-attn-tau')?.value === '{tau:g}'")
            drawn_alpha(page, own_alpha(tau), T, err_msg=f"τ = {tau}")
            seen.add(tau)
        assert len(seen) == 3
        touch("touchEnd", x)
        wait_for_app(page)
        assert_no_exception(page)
    finally:
        context.close()


def test_typing_a_score_and_picking_no_scaling_redraw_alpha_in_the_browser(app_server, page):
    T = len(SEED_TEXT)
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&layer=0&head=0")
    wait_for_app(page, 240_000)
    page.get_by_text(t("attn.more", "en")).first.click()
    page.locator(".st-key-attn_editing label").first.click()
    score = page.locator(".st-key-attn_edit_value_l0_h0_i3_j0 input")
    score.wait_for(timeout=60_000)
    wait_for_app(page)
    record = served_example("textbook")
    trace = trace_of(record.model, record.vocab.encode(SEED_TEXT)[None], 0)
    score.fill("5")  # typed, not sent (no Enter): only the browser knows it
    page.wait_for_function("() => document.getElementById('tg-live-attn-edit')?.value === '0,0,3,0,5'", timeout=10_000)
    drawn_alpha(page, trace.with_switches(Switches(edits=((0, 3, 0, 5.0),))).state["alpha"][0, 0].double().numpy(), T)
    score.press("Enter")
    wait_for_app(page)
    page.locator(".st-key-attn_scaling").get_by_text(t("attn.scale_one", "en")).click()  # the divisor 1
    page.wait_for_function("() => document.getElementById('tg-live-attn-div')?.value === '1'", timeout=10_000)
    sw = Switches(edits=((0, 3, 0, 5.0),), divisor=1.0)
    drawn_alpha(page, trace.with_switches(sw).state["alpha"][0, 0].double().numpy(), T)
    wait_for_app(page)
    np.testing.assert_allclose(
        alpha_matrix(page.evaluate(ALPHA_JS), T), trace.with_switches(sw).state["alpha"][0, 0], rtol=1e-4, atol=1e-6
    )
    assert_no_exception(page)


#: Step 5's cells as labelled for screen readers: "key position j: 1 好; query position i: 2 世;
#: value: -0.71…" (the masked cells have no value).
VALUE_JS = f"""() => Array.from(({HEAT})?.querySelectorAll("svg path[aria-label]") ?? [])
    .map((el) => el.getAttribute("aria-label")).filter((label) => label.includes("value: "))"""


def drawn_scores(labels: list[str], T: int) -> np.ndarray:
    """The (T, T) scores drawn (masked cells −∞) from the cells' labels."""
    out = np.full((T, T), -np.inf)
    for label in labels:
        parts = dict(part.split(": ", 1) for part in label.split("; "))
        out[int(parts["query position i"].split()[0]), int(parts["key position j"].split()[0])] = float(
            parts["value"].replace("−", "-")
        )
    return out


def drawn_scores_when(page, expected: np.ndarray, T: int, timeout_s: float = 10.0) -> np.ndarray:
    """Step 5's drawn scores once they equal ``expected`` (−∞ where masked; rtol and atol 1e-4),
    polled every 0.1 s as :func:`drawn_alpha`; fails with the last drawing after ``timeout_s``."""
    for _ in range(int(timeout_s * 10)):
        drawn = drawn_scores(page.evaluate(VALUE_JS), T)
        if np.allclose(drawn, expected, rtol=1e-4, atol=1e-4):
            return drawn
        page.wait_for_timeout(100)
    np.testing.assert_allclose(drawn, expected, rtol=1e-4, atol=1e-4)
    return drawn


def test_the_masked_scores_follow_a_typed_divisor_and_the_mask_before_the_server(app_server, page):
    T = len(SEED_TEXT)
    record = served_example("textbook")
    trace = trace_of(record.model, record.vocab.encode(SEED_TEXT)[None], 0)

    def own(divisor: float | None, causal_mask: bool = True) -> np.ndarray:
        return trace.with_switches(Switches(divisor=divisor, causal_mask=causal_mask)).state["S_masked"][0, 0].numpy()

    page.set_viewport_size({"width": 1280, "height": 2400})
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=mask&layer=0&head=0")
    wait_for_app(page, 240_000)
    page.wait_for_function(f"() => ({VALUE_JS})().length === {T * (T + 1) // 2}", timeout=60_000)
    np.testing.assert_allclose(drawn_scores(page.evaluate(VALUE_JS), T), own(None), rtol=1e-4, atol=1e-4)
    page.get_by_text(t("attn.more", "en")).first.click()
    page.locator(".st-key-attn_scaling").get_by_text(t("attn.scale_custom", "en")).click()
    divisor = page.locator(".st-key-attn_divisor input")
    divisor.wait_for(timeout=60_000)
    wait_for_app(page)
    start = float(divisor.input_value())
    page.evaluate(f'() => {{ ({HEAT}).querySelector("svg").tgMark = 1; }}')
    before = drawn_scores(page.evaluate(VALUE_JS), T)
    np.testing.assert_allclose(before, own(start), rtol=1e-4, atol=1e-4)
    SHOTS.mkdir(parents=True, exist_ok=True)
    heat(page).screenshot(path=str(SHOTS / f"mask_step_divisor_{start:g}.png"))
    for typed in ("2", "20", "0.5"):  # typed, not sent (no Enter): only the browser knows them
        divisor.fill(typed)
        live_div = f"() => document.getElementById('tg-live-attn-div')?.value === '{typed}'"
        page.wait_for_function(live_div, timeout=10_000)
        during = drawn_scores_when(page, own(float(typed)), T)
        assert not np.allclose(during[np.isfinite(during)], before[np.isfinite(before)])  # changed before the server
        assert np.isneginf(during[np.triu_indices(T, 1)]).all()
        heat(page).screenshot(path=str(SHOTS / f"mask_step_divisor_{typed}.png"))
    ticks = page.evaluate(  # the colour legend's ticks: the scale's domain is [-b, b], symmetric about 0
        f"""() => Array.from(({HEAT}).querySelectorAll(".role-legend-label text"))
        .map((el) => el.textContent)"""
    )
    values = sorted(float(v.replace("−", "-")) for v in ticks if v.strip().lstrip("−-").replace(".", "").isdigit())
    assert len(values) >= 3 and values == sorted(-v for v in values), ticks
    divisor.press("Enter")
    wait_for_app(page)
    np.testing.assert_allclose(drawn_scores(page.evaluate(VALUE_JS), T), own(0.5), rtol=1e-4, atol=1e-4)
    assert page.evaluate(f'() => ({HEAT}).querySelector("svg").tgMark') == 1  # same spec: data only
    for refused in ("0.001", "5000"):  # outside what the server takes: the chart keeps the divisor in use
        divisor.fill(refused)
        page.wait_for_timeout(400)  # the script's next reads (every frame after the key, then 4 a second)
        assert page.evaluate("() => document.getElementById('tg-live-attn-div')?.value") == ""
        np.testing.assert_allclose(drawn_scores(page.evaluate(VALUE_JS), T), own(0.5), rtol=1e-4, atol=1e-4)
        divisor.press("Enter")
        label = t("attn.scale_value", "en")
        refused_text = t("err.number_refused", "en", label=label, value=refused, lo="0.01", hi="1000", kept="0.5")
        page.get_by_text(refused_text).wait_for()
        assert float(divisor.input_value()) == 0.5

    page.locator(".st-key-attn_mask label").first.click()
    page.wait_for_function(f"() => ({VALUE_JS})().length === {T * T}", timeout=10_000)  # no masked cell left
    drawn = drawn_scores(page.evaluate(VALUE_JS), T)
    if np.isfinite(drawn).all():  # read before the rerun's redraw of the page (else read again below)
        np.testing.assert_allclose(drawn, own(0.5, False), rtol=1e-4, atol=1e-4)
    wait_for_app(page)
    page.wait_for_function(f"() => ({VALUE_JS})().length === {T * T}", timeout=30_000)
    np.testing.assert_allclose(drawn_scores(page.evaluate(VALUE_JS), T), own(0.5, False), rtol=1e-4, atol=1e-4)
    heat(page).screenshot(path=str(SHOTS / "mask_step_mask_off.png"))
    assert_no_exception(page)


#: Counts the animation frames the page asks for (installed before the page's own scripts).
COUNT_FRAMES_JS = """(() => {
  const ask = window.requestAnimationFrame.bind(window);
  window.tgFrames = 0;
  window.requestAnimationFrame = (callback) => { window.tgFrames += 1; return ask(callback); };
})()"""


def test_the_live_script_rests_while_nobody_acts_and_follows_a_reset_from_the_server(app_server, page):
    """The page's script reads the widgets on every frame only while the student acts: an idle page
    asks for no animation frame (a loop of every frame kept the browser drawing on the thread that
    draws the server's answer); a switch the server sets back (reset) still reaches the heatmap."""
    T = len(SEED_TEXT)
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.add_init_script(COUNT_FRAMES_JS)
    page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&layer=0&head=0")
    wait_for_app(page, 240_000)
    page.wait_for_function(f"() => ({ALPHA_JS})().length === {T * (T + 1) // 2}", timeout=60_000)
    value = page.locator(".st-key-attn_temperature input[type=range]")
    value.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    tau = float(value.get_attribute("aria-valuetext"))
    assert tau > 1.0
    drawn_alpha(page, own_alpha(tau), T, err_msg=f"τ = {tau}")
    wait_for_app(page)
    page.wait_for_timeout(1_000)  # the script's waking time after the last key has passed
    before = page.evaluate("window.tgFrames")
    page.wait_for_timeout(1_500)
    assert page.evaluate("window.tgFrames") == before  # nobody acts: no frame asked for

    page.locator(".st-key-attn_reset").get_by_role("button", name=t("attn.reset", "en")).click()  # τ back to 1
    page.wait_for_function("() => document.getElementById('tg-live-attn-tau')?.value === '1'", timeout=30_000)
    drawn_alpha(page, own_alpha(1.0), T, err_msg="after reset")
    wait_for_app(page)
    assert_no_exception(page)


def test_the_softmax_rows_three_column_titles_are_all_drawn_on_a_phone(app_server, browser):
    """At 390 px the row's columns are about 100 px apart: each title is drawn in lines (a "\\n" in
    the string), none hidden as overlapping its neighbour (Vega hides overlapping axis labels)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{app_server}/attention?lang=en&model=textbook&step=softmax&layer=0&head=0")
        wait_for_app(page, 240_000)
        row = page.locator(CHART).filter(has_text="Σ =").first
        row.locator("svg text").first.wait_for(timeout=60_000)
        titles = row.evaluate(
            """(chart) => Array.from(chart.querySelectorAll('svg text'))
            .filter((el) => /^(S̃|e_k|α)/.test(el.textContent))
            .map((el) => [el.textContent, getComputedStyle(el).opacity])"""
        )
        expected = [
            t(key, "en").replace("\n", "")
            for key in ("attn.live_row_scaled", "attn.live_row_exp", "attn.live_row_alpha")
        ]
        assert sorted(text for text, _ in titles) == sorted(expected), titles
        assert all(opacity == "1" for _, opacity in titles), titles
        assert_no_exception(page)
    finally:
        context.close()
