"""Browser test: training keeps going (and the chart keeps growing) while the student visits another page."""

import re

import pytest
from conftest import SCREENSHOTS, assert_no_exception, wait_for_app
from playwright.sync_api import expect

from tinygpt.i18n import CATALOGUE, t

pytestmark = pytest.mark.browser

RUNNING = re.compile(r"Training: step (\d+) / 5000")


def current_step(page) -> int:
    """The step the live progress shows (each step is one point of the loss chart)."""
    text = page.get_by_text(RUNNING).first.inner_text(timeout=60_000)
    return int(RUNNING.search(text).group(1))


def wait_for_step_above(page, n: int, timeout_ms: int = 60_000) -> int:
    page.wait_for_function(
        """([n]) => { const m = document.body.innerText.match(/Training: step (\\d+) \\/ 5000/);
                      return m !== null && parseInt(m[1]) > n; }""",
        arg=[n],
        timeout=timeout_ms,
        polling=200,
    )
    return current_step(page)


def test_training_continues_across_a_page_switch_and_the_chart_keeps_growing(app_server, page):
    page.goto(f"{app_server}/?lang=en")
    wait_for_app(page)
    page.get_by_role("button", name=t("train.preset.cheat", "en"), exact=True).click()  # small model, no early stop
    epochs = page.get_by_role("textbox", name=t("train.epochs", "en"), exact=True)
    expect(epochs).to_have_value("300", timeout=30_000)  # the preset's rerun has reached the browser
    wait_for_app(page)
    epochs.fill("5000")
    epochs.press("Enter")
    wait_for_app(page)
    expect(epochs).to_have_value("5000")
    page.get_by_role("button", name=t("train.start", "en"), exact=True).click()
    first = wait_for_step_above(page, 0)
    chart = page.locator("[data-testid='stVegaLiteChart']")
    chart.first.wait_for(timeout=30_000)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name=t("nav.predict", "en"), exact=True).click()
    page.get_by_role("heading", name=t("predict.title", "en")).wait_for(timeout=60_000)
    page.get_by_text(CATALOGUE["model.training_running"]["en"].split("(")[0].strip()).first.wait_for(timeout=30_000)
    assert_no_exception(page)

    page.get_by_test_id("stSidebarNav").get_by_role("link", name=t("nav.train", "en"), exact=True).click()
    page.get_by_role("heading", name=t("train.title", "en")).wait_for(timeout=60_000)
    back = wait_for_step_above(page, first)  # the same run, further along
    chart.first.wait_for(timeout=30_000)
    later = wait_for_step_above(page, back)  # and still growing while we watch
    assert first < back < later
    assert_no_exception(page)

    page.get_by_role("button", name=t("train.stop", "en"), exact=True).click()
    page.get_by_text(re.compile(r"Stopped at step \d+")).first.wait_for(timeout=60_000)


def test_uploading_a_pickle_is_refused_and_a_checkpoint_is_used(app_server, page, tmp_path):
    import pickle

    from helpers import SMALL

    from tinygpt.config import TrainConfig
    from tinygpt.training.checkpoint import to_bytes
    from tinygpt.training.train import train

    evil = tmp_path / "model.safetensors"
    evil.write_bytes(pickle.dumps({"weights": [1, 2, 3]}))
    good = tmp_path / "poem.safetensors"
    record = train("白日依山尽", SMALL, TrainConfig(lr=3e-3, epochs=5, early_stop_loss=0.0))
    good.write_bytes(to_bytes(record))

    page.goto(f"{app_server}/?lang=zh")
    wait_for_app(page)
    uploader = page.locator("[data-testid='stFileUploaderDropzoneInput']")
    uploader.set_input_files(str(evil))
    page.get_by_text(t("ckpt.err.pickle", "zh")).wait_for(timeout=60_000)  # the student's language
    assert_no_exception(page)
    uploader.set_input_files(str(good))  # replaces the refused file
    page.get_by_text(
        t("train.upload_ok", "zh", text="白日依山尽", params=record.gpt_cfg.n_parameters(), steps=5)
    ).wait_for(timeout=60_000)
    note = page.get_by_text(t("train.session_note_file", "zh"))  # said plainly: a reload needs the file again
    note.wait_for(timeout=60_000)
    note.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "train_upload_session_note_zh.png"))
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=t("nav.predict", "zh"), exact=True).click()
    page.get_by_text(t("model.choice.own", "zh")).first.wait_for(timeout=60_000)
    page.get_by_text("白日依山尽").first.wait_for(timeout=60_000)
    assert_no_exception(page)


@pytest.mark.parametrize("typed", ["1e30", "9" * 25])
def test_a_typed_epoch_count_out_of_range_is_named_and_train_is_disabled(app_server, page, typed):
    page.goto(f"{app_server}/?lang=zh")
    wait_for_app(page)
    epochs = page.get_by_role("textbox", name=t("train.epochs", "zh"), exact=True)
    epochs.fill(typed)
    epochs.press("Enter")
    wait_for_app(page)
    expect(epochs).to_have_value(typed)  # the box keeps what was typed, and that is what is checked
    alert = page.locator("[data-testid='stAlertContentError']").first
    expect(alert).to_contain_text(f"{t('field.epochs', 'zh')} = {typed} ", timeout=30_000)
    expect(page.get_by_role("button", name=t("train.start", "zh"), exact=True)).to_be_disabled()
    assert_no_exception(page)
