"""The Predict page before its example's model is ready: the controls first, the predictions after.

The context example's model is loaded in a background thread on a fresh server; here its Future is
held unset (``tinygpt.training.jobs._example_futures``), so the page runs as it does in those seconds,
then the Future is given the model and the page runs again.
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest
from helpers import open_link, served_example, tables

from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t
from tinygpt.training import jobs
from tinygpt.ui.predict import predict_wait
from tinygpt.ui.predict.predict_wait import sketch
from tinygpt.ui.views.predict_table import P_PREFIX

CONTEXT = EXAMPLES["context"]


@pytest.fixture
def unset(monkeypatch) -> Future:
    """The context example's model Future, unset until the test sets it."""
    future: Future = Future()
    future.set_running_or_notify_cancel()
    monkeypatch.setitem(jobs._example_futures, "context", future)
    return future


@pytest.fixture
def held(unset, monkeypatch) -> Future:
    """:func:`unset`, and a page run that ends at once when the model is not ready (its wait is 0 s):
    the page as the browser shows it while the model loads."""
    monkeypatch.setattr(predict_wait, "WAIT_IN_RUN_S", 0.0)
    return unset


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def test_the_sketch_reads_as_the_loaded_model_does():
    record, drawn = served_example("context"), sketch("context")
    assert drawn.text == record.text and drawn.vocab == record.vocab
    assert drawn.gpt_cfg == record.gpt_cfg and drawn.window == record.window == 15


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_prefix_box_is_drawn_while_the_model_loads_and_the_predictions_follow(held, lang):
    at = open_link("predict", lang)
    loading = t("predict.model_loading", lang, seconds=0)
    assert at.title[0].value == t("predict.title", lang) and at.markdown[0].value == t("predict.intro", lang)
    box = at.text_input(key=P_PREFIX)
    assert box.value == CONTEXT.text[: CONTEXT.gpt.max_len]  # the example's own text, before its model
    assert set(CONTEXT.text) <= set(box.help.replace("\\", ""))  # the known characters, from its vocabulary
    assert texts(at.info) == [loading]
    banner = t("predict.loading_banner", lang, name=t("model.choice.context", lang), text=CONTEXT.text)
    assert banner in texts(at.caption)
    assert not at.get("vega_lite_chart") and not tables(at)  # no prediction without the model

    held.set_result(served_example("context"))
    at.run()
    assert not at.exception and loading not in texts(at.info) and banner not in texts(at.caption)
    assert at.text_input(key=P_PREFIX).value == CONTEXT.text[: CONTEXT.gpt.max_len]
    assert len(at.get("vega_lite_chart")) == 1 and len(tables(at)) == 1  # the generation's first step


def test_a_link_s_prefix_and_the_student_s_edit_while_loading_are_kept_for_the_model(held):
    at = open_link("predict", "en", prefix="爱你")
    assert at.text_input(key=P_PREFIX).value == "爱你"
    at.text_input(key=P_PREFIX).set_value("他爱").run()
    assert at.text_input(key=P_PREFIX).value == "他爱" and t("predict.model_loading", "en", seconds=0) in texts(at.info)
    held.set_result(served_example("context"))
    at.run()
    assert at.text_input(key=P_PREFIX).value == "他爱" and not at.exception
    results = [m.value for m in at.markdown if m.value.startswith("Result: 他爱 **")]
    assert len(results) == 1 and len(results[0]) > len("Result: 他爱 ****")  # generated from the edited prefix


def test_a_prefix_the_example_cannot_read_is_named_at_once_and_stays_after_loading(held):
    at = open_link("predict", "en", prefix="爱X")
    assert len(at.error) == 1 and "X" in at.error[0].value and not at.info  # no wait for a refusal
    held.set_result(served_example("context"))
    at.run()
    assert at.text_input(key=P_PREFIX).value == "爱X" and len(at.error) == 1 and "X" in at.error[0].value


def test_a_run_that_waits_for_the_model_ends_with_the_predictions_and_without_the_note(unset, monkeypatch):
    waits, real_wait = [], predict_wait.wait

    def model_ready_while_waiting(futures, timeout):  # the page waits: the model arrives meanwhile
        waits.append(timeout)
        unset.set_result(served_example("context"))
        return real_wait(futures, timeout)

    monkeypatch.setattr(predict_wait, "wait", model_ready_while_waiting)
    at = open_link("predict", "en")
    assert len(waits) == 1 and 0 < waits[0] <= 1.0  # it waited, in a slice of at most a second
    assert at.text_input(key=P_PREFIX).value == CONTEXT.text[: CONTEXT.gpt.max_len]
    assert not any(i.value.startswith("The model is loading") for i in at.info)
    assert len(at.get("vega_lite_chart")) == 1 and len(tables(at)) == 1
    assert any(c.value.startswith("Context example (text “") for c in at.caption)  # the model's own banner
