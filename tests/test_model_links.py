"""The model a page shows (textbook / context / own), links that carry it, one training for equal requests.

Unit tests check ``tinygpt.training.links`` and the job registry of ``tinygpt.training.jobs``; AppTest tests open
the pages with query parameters as a student opening a link would.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
import torch
from helpers import SMALL, open_page
from streamlit.testing.v1 import AppTest

from tinygpt.config import MAX_EPOCHS, ConfigError, ConfigErrors, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.i18n import t
from tinygpt.training import jobs
from tinygpt.training.links import decode_edits, decode_train, encode_edits, encode_train, reproducible_settings
from tinygpt.training.record import StopReason
from tinygpt.training.train import train
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.views.attention_table import K_EDITING, K_RESET

TEXT = "你好你世你界"
NO_MASK = TrainConfig(lr=3e-3, epochs=40, seed=3, early_stop_loss=0.0, causal_mask=False, window=4)


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


# ---------------------------------------------------------------- train= and edits= as text


def test_train_parameter_round_trip_writes_only_what_differs_from_v1():
    gpt, tc = SMALL, TrainConfig(lr=3e-3, epochs=300, seed=7, causal_mask=False, window=4)
    spec = encode_train("a;b=c", gpt, tc)
    assert (
        spec
        == "v1;d_model=32;n_heads=4;n_layers=2;d_ff=64;max_len=16;lr=0.003;epochs=300;seed=7;causal_mask=0;window=4;"
        "text=a;b=c"
    )
    text, g, t2 = decode_train(spec)
    assert (text, g.d_model, g.n_heads, g.n_layers, g.d_ff, g.max_len, g.vocab_size) == ("a;b=c", 32, 4, 2, 64, 16, 5)
    assert t2 == tc


@pytest.mark.parametrize(
    "spec, field, accepted_part",
    [
        ("v1;d_model=7;n_heads=2;text=ab", "n_heads", "d_model=7"),
        (f"v1;epochs={MAX_EPOCHS + 1};text=ab", "epochs", str(MAX_EPOCHS)),
        ("v1;colour=red;text=ab", "colour", "d_model"),
        ("v2;text=ab", "train", "v1"),
        ("v1;lr=fast;text=ab", "lr", "number"),
        ("v1;d_model=64", "text", "text="),
    ],
)
def test_refused_train_parameter_names_the_value(spec, field, accepted_part):
    with pytest.raises(ConfigError) as info:
        decode_train(spec)
    assert info.value.field == field
    assert accepted_part in info.value.accepted


def test_a_link_with_several_bad_settings_names_each_of_them():
    with pytest.raises(ConfigErrors) as info:
        decode_train("v1;d_model=abc;colour=red;epochs=0;n_heads=2;text=ab")
    assert [(e.field, e.value) for e in info.value.errors] == [("d_model", "abc"), ("colour", "red"), ("epochs", "0")]
    assert isinstance(info.value, ConfigError) and info.value.field == "d_model"  # the first, for one-value readers
    assert "colour" in str(info.value) and "epochs" in str(info.value)


def test_edits_parameter_round_trip_and_refusals():
    edits = ((0, 3, 1, 5.5), (1, 2, 0, -1.0))
    assert encode_edits(edits) == "0:3:1:5.5,1:2:0:-1"
    assert decode_edits("0:3:1:5.5,1:2:0:-1", 2, 100.0) == edits
    for bad in ("2:0:0:1", "0:0:1", "0:0:0:inf", "0:0:0:1e9", "x:0:0:1"):
        with pytest.raises(ConfigError):
            decode_edits(bad, 2, 100.0)


@pytest.mark.parametrize("typed", ["1e-400", "0", "0.0", "-1e-3", "5", "fast"])
def test_a_learning_rate_refused_in_a_link_is_shown_as_typed_with_one_wording(typed):
    with pytest.raises(ConfigError) as info:
        decode_train(f"v1;lr={typed};text=ab")
    assert (info.value.field, info.value.value, info.value.key) == ("lr", typed, "lr")
    with pytest.raises(ConfigError) as form:  # the Train page's own check says the same
        TrainConfig(lr=0.0)
    assert info.value.accepted == form.value.accepted and form.value.key == "lr"


def test_a_score_edit_outside_the_text_is_told_that_i_and_j_are_positions_of_the_text():
    with pytest.raises(ConfigError) as info:
        decode_edits("0:999:999:5", 2, 100.0)
    assert info.value.key == "edits" and info.value.value == "0:999:999:5"
    for lang, word in (("en", "positions of the text"), ("zh", "文本中的位置")):
        assert word in t(f"accepted.{info.value.key}", lang, **info.value.params)


def test_reproducible_settings_of_finished_stopped_and_loaded_models():
    record = train(TEXT, SMALL, TrainConfig(lr=3e-3, epochs=6, early_stop_loss=0.0))
    assert reproducible_settings(record) == (TEXT, record.gpt_cfg, record.train_cfg)
    stopped = train(TEXT, SMALL, TrainConfig(lr=3e-3, epochs=50, early_stop_loss=0.0), should_stop=lambda: False)
    stopped.stop_reason, stopped.losses = StopReason.STOPPED, stopped.losses[:50]
    assert reproducible_settings(stopped)[2].epochs == 50
    record.init_seed = None  # what a checkpoint file gives
    assert reproducible_settings(record) is None


# ---------------------------------------------------------------- one training for equal requests


def test_equal_requests_share_one_training(monkeypatch):
    runs = []

    class CountingTrainer(jobs.Trainer):
        def __init__(self, record):
            runs.append(record.text)
            super().__init__(record)

    monkeypatch.setattr(jobs, "Trainer", CountingTrainer)
    shelf, queue = jobs.ModelShelf(), jobs.JobQueue(slots=1)
    settings = ("共享的训练", SMALL, TrainConfig(lr=3e-3, epochs=400, early_stop_loss=0.0, seed=11))
    barrier, got = threading.Barrier(6), []

    def ask(n: int) -> None:
        barrier.wait()
        got.append(jobs.start_job(*settings, queue, shelf, owner=f"session-{n}"))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len({id(j) for j in got}) == 1  # every session holds the same job
    job = got[0]
    assert job.owner.startswith("session-")
    job.join(120)
    assert job.status == jobs.JobStatus.DONE and runs == ["共享的训练"]
    assert len(job.losses) == 400
    later = jobs.start_job(*settings, queue, shelf, owner="late")  # after the run: the shelf's model
    assert later.from_cache and later.result is job.result and runs == ["共享的训练"]
    assert jobs.running_job(jobs.model_key(*settings)) is None


def test_a_paused_start_is_not_shared():
    shelf, queue = jobs.ModelShelf(), jobs.JobQueue(slots=2)
    settings = ("单步", SMALL, TrainConfig(lr=3e-3, epochs=50, early_stop_loss=0.0))
    stepping = jobs.start_job(*settings, queue, shelf, paused=True, steps=1, owner="a")
    other = jobs.start_job(*settings, queue, shelf, owner="b")
    assert other is not stepping and other.owner == "b"
    stepping.stop()
    other.join(60)
    stepping.join(60)


def test_examples_train_once_and_the_textbook_is_the_default():
    from tinygpt.ui.shared.models import shelf

    textbook = jobs.example_training("textbook", shelf())
    assert jobs.default_training(shelf()) is textbook
    context = jobs.example_training("context", shelf()).result(120)
    ex = EXAMPLES["context"]
    assert shelf().get(jobs.model_key(ex.text, ex.gpt, ex.train)) is context
    assert context.text == ex.text and len(context.losses) == ex.train.epochs


# ---------------------------------------------------------------- pages


def test_model_choice_follows_the_student_and_the_url():
    at = open_page("predict", model="context")
    assert t("model.banner.context", "en", text="我爱你，你爱我。他爱她，她爱他。", size="") in captions(at)
    assert t("model.size", "en", d_model=32, n_layers=2, n_heads=2) in captions(at)  # not the Train page's 512/6/8
    assert at.button_group(key="model_choice").value == "context"
    at.switch_page("pages/attention.py").run()
    assert at.session_state["attn_text"] == EXAMPLES["context"].text[:15]
    at.button_group(key="model_choice").set_value("textbook").run()
    assert at.query_params["model"] == "textbook" and at.session_state["attn_text"] == "你好世界"
    assert t("model.banner.textbook", "en", text="你好世界", size="") in captions(at)
    assert t("model.size", "en", d_model=512, n_layers=6, n_heads=8) in captions(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_own_without_a_model_falls_back_to_the_textbook(lang):
    at = open_page("predict", lang=lang, model="own")
    assert any(i.value == t("model.own_missing", lang) for i in at.info)
    assert at.button_group(key="model_choice").value == "textbook"


def test_a_model_trained_without_the_mask_opens_with_the_mask_off_and_reset_restores_it():
    record = train(TEXT, SMALL, NO_MASK)
    at = open_page("attention", own_model=record)
    assert at.session_state["attn_mask"] is False
    assert any(t("model.mask_off", "en") in c.help for c in at.caption if c.help)  # how it trained: behind "?"
    at.toggle(key="attn_mask").set_value(True).run()
    assert at.session_state["attn_mask"] is True
    at.button(key=K_RESET).click().run()
    assert at.session_state["attn_mask"] is False


def _link_params(at: AppTest) -> dict[str, str]:
    # the link as drawn after the page ran, which replaces the one drawn before it in the same
    # slot; AppTest lists the replaced one after it (a browser shows one popover:
    # tests/test_browser_model_link.py counts them)
    url = [c.value for c in at.code if c.language != "python"][0]
    return dict(parse_qsl(urlsplit(url).query))


def test_a_class_link_reproduces_the_model_and_the_view_in_a_fresh_session():
    trained = train(TEXT, SMALL, NO_MASK)  # the model a student trained in one session
    teacher = open_page("attention", own_model=trained, text="你好你世", layer="1", head="2", step="softmax")
    params = _link_params(teacher)
    assert params["model"] == "own" and params["train"] == encode_train(TEXT, trained.gpt_cfg, NO_MASK)
    assert (params["text"], params["layer"], params["head"], params["step"], params["mask"]) == (
        "你好你世",
        "1",
        "2",
        "softmax",
        "0",
    )

    student = open_page("attention", **params)  # not on the shelf: the link's model trains as a job
    deadline = time.monotonic() + 120
    while "own_model" not in student.session_state and time.monotonic() < deadline:
        time.sleep(0.5)
        student.run()
    own = student.session_state[K_OWN]
    assert own is not trained
    idx = trained.vocab.encode("你好你世界你")[None]
    assert torch.equal(own.model(idx), trained.model(idx))  # identical logits
    ss = student.session_state
    assert (ss["attn_text"], ss["attn_layer"], ss["attn_head"], ss["attn_step"], ss["attn_mask"]) == (
        "你好你世",
        1,
        2,
        "softmax",
        False,
    )
    # the teacher's model, not "your model"
    assert t("model.banner.link", "en", text="你好你世你界", size="") in captions(student)
    assert t("model.banner.own", "en", text="你好你世你界", size="") not in captions(student)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_link_gets_its_message_and_the_page_works_on(lang):
    at = open_page("predict", lang=lang, model="own", train="v1;d_model=7;n_heads=2;text=你好")
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith(t("link.bad", lang, error="")[:6]) and "d_model=7" in warning
    assert at.button_group(key="model_choice").value == "textbook"
    at = open_page("attention", lang=lang, train=f"v1;epochs={MAX_EPOCHS + 5};text=你好", edits="0:0:0:nan")
    warnings = [w.value for w in at.warning]
    assert any(f"{t('field.epochs', lang)} = {MAX_EPOCHS + 5}" in w and str(MAX_EPOCHS) in w for w in warnings)
    assert any("edits=0:0:0:nan" in w for w in warnings)


def test_score_edits_travel_in_the_link():
    at = open_page("attention", model="textbook", text="你好世界", layer="0", head="1", edits="1:3:0:5.5")
    assert at.session_state[K_EDITING] is True
    assert at.query_params["edits"] == "1:3:0:5.5"
    assert _link_params(at)["edits"] == "1:3:0:5.5"
    at.button(key=K_RESET).click().run()
    assert "edits" not in at.query_params
