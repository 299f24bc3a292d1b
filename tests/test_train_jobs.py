"""Training jobs: controls at step boundaries, surviving reruns and page switches, determinism,
the shared model cache and its isolation between sessions, the non-finite guard, snapshots,
host limits and the runs overlay."""

import threading
import time

import pytest
import torch
from helpers import SMALL, TEXT_NUMBER_KEYS, tables
from streamlit.testing.v1 import AppTest

from tinygpt.config import (
    DEFAULT_GPT as SEED_GPT,
)
from tinygpt.config import (
    MAX_EPOCHS,
    MAX_STEP_WORK,
    MAX_TEXT_LEN,
    MAX_TOKENS_PER_STEP,
    SEED_TEXT,
    ConfigError,
    TrainConfig,
)
from tinygpt.i18n import CATALOGUE, t
from tinygpt.limits import host_configs
from tinygpt.training.jobs import JobQueue, ModelShelf, settings_of, start_job
from tinygpt.training.train import NonFiniteLossError, Trainer, attention_maps, build, train
from tinygpt.ui.shared.models import K_JOB, K_OWN
from tinygpt.ui.train.train_runs import K_RUNS
from tinygpt.ui.train.training_jobs import run_labels
from tinygpt.ui.views.train_table import T_CAUSAL_MASK, T_D_MODEL, T_EPOCHS

CFG = TrainConfig(lr=3e-3, epochs=60, early_stop_loss=0.0)


def wait_until(cond, timeout=60.0):
    deadline = time.time() + timeout
    while not cond():
        assert time.time() < deadline, "timed out"
        time.sleep(0.02)


def wait_paused(job, steps):
    wait_until(lambda: job.status == "paused" and len(job.losses) == steps)


def fresh_job(cfg=CFG, paused=False, steps=0, slots=2, models=None, gpt=SMALL):
    return start_job(
        SEED_TEXT, gpt, cfg, paused=paused, steps=steps, queue=JobQueue(slots), models=models or ModelShelf()
    )


# ---------------------------------------------------------------- controls and determinism


def test_pause_step_resume_stop_act_at_step_boundaries():
    reference = train(SEED_TEXT, SMALL, CFG)  # the same settings trained in one go
    job = fresh_job(paused=True)
    wait_paused(job, 0)  # paused before the first step: nothing ran
    for n in (1, 2, 3):
        job.step_once()  # exactly one optimizer step each time
        wait_paused(job, n)
    assert job.losses == reference.losses[:3]
    job.resume()
    wait_until(lambda: len(job.losses) >= 10)
    job.pause()
    wait_until(lambda: job.status == "paused")
    n = len(job.losses)
    time.sleep(0.3)
    assert len(job.losses) == n  # no step while paused
    job.stop()
    job.join(30)
    assert job.status == "stopped" and job.result.stop_reason == "stopped"
    assert job.result.losses == job.losses == reference.losses[:n]  # bitwise the same curve so far
    assert job.result.frozen and job.finished_model() is None  # a stopped run is not adopted


def test_same_settings_and_seed_give_bitwise_the_same_curve_and_weights():
    job = fresh_job()
    job.join(60)
    again = train(SEED_TEXT, SMALL, CFG)
    other_seed = train(SEED_TEXT, SMALL, TrainConfig(**{**CFG.to_dict(), "seed": 1}))
    assert job.status == "done" and len(job.losses) == 60
    assert job.losses == again.losses  # exact float equality, step by step
    assert all(torch.equal(p, q) for p, q in zip(job.result.model.parameters(), again.model.parameters()))
    assert other_seed.losses != again.losses


def test_waiting_job_shows_its_place_in_line_and_runs_when_a_slot_frees():
    queue, models = JobQueue(1), ModelShelf()
    first = start_job(SEED_TEXT, SMALL, CFG, paused=True, queue=queue, models=models)  # holds the one slot
    wait_paused(first, 0)
    second = start_job(SEED_TEXT, SMALL, TrainConfig(**{**CFG.to_dict(), "seed": 1}), queue=queue, models=models)
    third = start_job(SEED_TEXT, SMALL, TrainConfig(**{**CFG.to_dict(), "seed": 2}), queue=queue, models=models)
    wait_until(lambda: third.progress().place == 2)
    assert second.progress().status == "waiting" and second.progress().place == 1
    third.stop()  # leaving the line
    wait_until(lambda: third.status == "stopped")
    assert second.progress().place == 1 and third.losses == []
    first.stop()
    second.join(60)
    assert second.status == "done" and len(second.losses) == 60


def test_snapshots_hold_alpha_of_every_layer_at_log_spaced_steps():
    record = train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=30, early_stop_loss=0.0))
    assert sorted(record.snapshots) == [0, 1, 2, 5, 10, 20, 30]  # 0 = before training, 30 = final
    alpha = record.snapshots[30]
    assert alpha.shape == (SMALL.n_layers, SMALL.n_heads, 4, 4)
    assert torch.allclose(alpha.sum(-1), torch.ones(SMALL.n_layers, SMALL.n_heads, 4), atol=1e-5)
    assert (alpha.triu(1) == 0).all()  # causal: the future gets exactly 0
    assert torch.equal(alpha, attention_maps(record.model, record.vocab.encode(SEED_TEXT)[None]))
    assert not torch.equal(record.snapshots[0], alpha)  # attention changed over training
    cheat = train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=5, early_stop_loss=0.0, causal_mask=False))
    future = torch.ones(4, 4, dtype=torch.bool).triu(1)
    assert (cheat.snapshots[5][..., future] > 0).all()  # without the mask every position reads ahead


# ---------------------------------------------------------------- the non-finite guard


@pytest.mark.parametrize("overlap", [False, True])
def test_non_finite_loss_keeps_exactly_the_last_finite_weights(overlap):
    record = build(SEED_TEXT, SMALL, CFG)
    trainer = Trainer(record, overlap=overlap)  # the replay runs the same (overlapped or plain) steps
    for _ in range(5):
        trainer.step()
    with torch.no_grad():  # W_5 now overflows in the next forward pass
        record.model.head.weight.fill_(torch.finfo(torch.float32).max)
    with pytest.raises(NonFiniteLossError) as info:
        trainer.step()
    trainer.finish()
    assert info.value.step == 6 and record.stop_reason == "non_finite" and len(record.losses) == 5
    four = train(SEED_TEXT, SMALL, TrainConfig(**{**CFG.to_dict(), "epochs": 4}))
    # the weights that gave the last finite loss (step 5's, i.e. after 4 updates), bit for bit
    assert all(torch.equal(p, q) for p, q in zip(record.model.parameters(), four.model.parameters()))
    assert record.losses[:4] == four.losses and max(record.snapshots) == 4


def diverging_config() -> TrainConfig:
    """lr = 1e30 (far beyond the page's options): the second forward pass overflows for real."""
    cfg = TrainConfig(lr=1.0, epochs=50, early_stop_loss=0.0)
    object.__setattr__(cfg, "lr", 1e30)
    return cfg


def test_a_diverging_run_stops_at_the_first_non_finite_step_and_the_page_says_so():
    at = open_train("en")
    previous = at.session_state[K_OWN] = train(SEED_TEXT, SMALL, TrainConfig(lr=3e-3, epochs=5, early_stop_loss=0.0))
    job = at.session_state[K_JOB] = fresh_job(diverging_config())
    job.join(60)
    at.run()
    assert job.status == "error" and isinstance(job.error, NonFiniteLossError)
    step = job.error.step
    assert step == len(job.losses) + 1 and all(map(lambda v: v == v and abs(v) != float("inf"), job.losses))
    assert all(torch.isfinite(p).all() for p in job.result.model.parameters())
    expected = t("train.non_finite", "en", step=step, loss=job.error.loss, lr=1e30, suggest=1e29)
    assert any(e.value == expected for e in at.error), [e.value for e in at.error]
    assert at.session_state[K_OWN] is previous  # the model the student had is kept
    assert not at.exception


# ---------------------------------------------------------------- pages: reruns, page switches, two sessions


def chart_data(at: AppTest):
    """The loss chart's data as a DataFrame (Streamlit sends it as an Arrow dataset)."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    proto = at.get("vega_lite_chart")[0].proto
    return convert_arrow_bytes_to_pandas_df(proto.datasets[0].data.data if proto.datasets else proto.data.data)


def open_train(lang="en") -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def small_settings(at: AppTest, **extra) -> AppTest:
    values = {
        "train_d_model": 32,
        "train_n_heads": 4,
        "train_n_layers": 2,
        "train_d_ff": 64,
        "train_max_len": 16,
        "train_lr": 3e-3,
        "train_epochs": 120,
        "train_early_stop": 0.0,
        **extra,
    }
    for key, value in values.items():  # the whole-number boxes are text boxes: set as typed text
        at.session_state[key] = str(value) if key in TEXT_NUMBER_KEYS else value
    return at.run()


def test_a_job_survives_reruns_and_page_switches_and_finishes():
    at = small_settings(open_train())
    at.button(key="train_start").click().run()
    job = at.session_state[K_JOB]
    at.button(key="train_pause").click().run()  # hold it at a step boundary while we look around
    wait_until(lambda: job.status == "paused")
    n = len(job.losses)
    at.run()  # a plain rerun
    at.switch_page("pages/predict.py").run()
    assert at.session_state[K_JOB] is job
    assert any(i.value == t("model.training_paused", "en", step=n) for i in at.info)  # other pages say so
    assert not at.exception
    at.switch_page("pages/train.py").run()
    assert at.session_state[T_D_MODEL] == 32  # settings survive the page switch
    assert len(at.get("vega_lite_chart")) == 1  # the chart of the run so far
    at.button(key="train_pause").click().run()  # Resume
    job.join(60)
    assert job.status == "done" and len(job.losses) == 120
    at.switch_page("pages/predict.py").run()  # the finished model is adopted wherever the student is
    assert at.session_state[K_OWN] is job.result
    at.switch_page("pages/train.py").run()
    assert any(s.value.startswith(CATALOGUE["train.done"]["en"].split("{")[0]) for s in at.success)
    assert list(chart_data(at)["step"]) == list(range(1, 121))  # every step on the chart
    assert not at.exception


def test_sessions_share_finished_models_read_only_and_never_change_each_others():
    a = small_settings(open_train(), train_epochs=40, train_seed=7)
    a.button(key="train_start").click().run()
    job_a = a.session_state[K_JOB]
    job_a.join(60)
    a.run()
    mine = a.session_state[K_OWN]
    before = [p.clone() for p in mine.model.parameters()]
    b = small_settings(open_train(), train_epochs=40, train_seed=7)
    b.button(key="train_start").click().run()
    job_b = b.session_state[K_JOB]
    assert job_b.from_cache and job_b.status == "done" and job_b._thread is None  # at once, nothing trained
    assert b.session_state[K_OWN] is mine  # one shared object
    record = job_b.result  # one message, with the figures of the run that trained it (its seconds say "then")
    assert [m.value for m in b.success] == [
        t(
            "train.done_cached",
            "en",
            steps=len(record.losses),
            loss=record.losses[-1],
            seconds=record.seconds,
            reason=t(f"train.reason.{record.stop_reason}", "en"),
        )
    ]
    assert mine.frozen and not any(p.requires_grad for p in mine.model.parameters())
    with pytest.raises(ValueError, match="read-only"):
        Trainer(mine)  # nobody can train the shared model further
    small_settings(b, train_epochs=40, train_seed=8, train_lr=1e-2)  # B trains something else
    b.button(key="train_start").click().run()
    b.session_state[K_JOB].join(60)
    b.run()
    b.button(key="train_reset").click().run()
    assert b.session_state[K_OWN] is not mine
    a.run()
    assert a.session_state[K_OWN] is mine
    assert all(torch.equal(p, q) for p, q in zip(mine.model.parameters(), before))


def test_runs_are_kept_and_labelled_by_the_settings_that_differ():
    at = small_settings(open_train(), train_text="你好你世你界", train_window=4, train_epochs=30)
    at.button(key="train_start").click().run()
    at.session_state[K_JOB].join(60)
    at.run()
    at.toggle(key=T_CAUSAL_MASK).set_value(False).run()
    at.button(key="train_start").click().run()
    at.session_state[K_JOB].join(60)
    at.run()
    runs = at.session_state[K_RUNS]
    assert [r.settings["causal_mask"] for r in runs] == [True, False]
    table = next(d.value for d in tables(at) if t("train.col.run", "en") in d.value.columns)
    assert list(table[t("train.col.run", "en")]) == ["#1 · causal mask on", "#2 · causal mask off"]  # the form's words
    assert list(table[t("train.col.expected", "en")]) == ["好你世", "好你世"]
    chart = chart_data(at)
    assert sorted(set(chart["run"])) == ["#1 · causal mask on", "#2 · causal mask off"]  # both curves on one chart
    assert len(chart) == 60 and chart["loss"].gt(0).all()
    assert run_labels([settings_of("ab", SMALL, CFG)] * 2, [1, 2]) == ["#1", "#2"]
    # the setting changed last leads the labels, so it is visible even when the legend is narrow
    seed = settings_of(SEED_TEXT, SEED_GPT, CFG)
    cheat = settings_of("你好你世你界", SMALL, CFG)
    labels = run_labels([seed, cheat, {**cheat, "causal_mask": False}], [1, 2, 3])
    # outside a script run the session's language is the default, zh
    on, off = (t("train.setting.causal_mask", "zh", value=t(f"train.setting.{v}", "zh")) for v in ("on", "off"))
    assert [label.split(" · ")[1] for label in labels] == [on, on, off]
    assert labels[0].split(" · ")[2] == t("train.setting.text", "zh", value="你好世界") == "文本 你好世界"


def test_a_run_whose_loss_went_up_is_offered_not_put_in_use():
    at = small_settings(open_train(), train_epochs=20, train_seed=11)
    at.button(key="train_start").click().run()  # a good model first
    at.session_state[K_JOB].join(60)
    at.run()
    good = at.session_state[K_OWN]
    small_settings(at, train_epochs=20, train_seed=12, train_lr=1.0)  # the page's largest lr: 1.93 -> 10.9
    at.button(key="train_start").click().run()
    job = at.session_state[K_JOB]
    job.join(60)
    at.run()
    bad = job.result
    assert job.status == "done" and job.diverged and bad.losses[-1] > bad.losses[0]
    assert at.session_state[K_OWN] is good and not at.success  # nothing trained is lost
    assert [w.value for w in at.warning] == [
        t("train.diverged", "en", first=bad.losses[0], last=bad.losses[-1], lr=1.0, suggest=0.1)
    ]
    at.switch_page("pages/predict.py").run()
    assert at.session_state[K_OWN] is good  # the other pages keep the good model too
    at.switch_page("pages/train.py").run()
    at.button(key="train_use_diverged").click().run()
    assert at.session_state[K_OWN] is bad
    assert [w.value for w in at.warning] == [t("train.diverged_in_use", "en", first=bad.losses[0], last=bad.losses[-1])]


# ---------------------------------------------------------------- host limits


@pytest.mark.parametrize(
    "text, gpt, training, field, key",
    [
        ("你" * (MAX_TEXT_LEN + 1), {}, {}, "len(text)", "max_text_len"),
        (SEED_TEXT, {}, {"epochs": MAX_EPOCHS + 1}, "epochs", "max_epochs"),
        (SEED_TEXT, {"max_len": 8}, {"window": 9}, "window", "window"),
        ("你好" * 100, {"max_len": 64}, {"window": 64}, "tokens_per_step", "max_tokens"),
        ("你好" * 40, {}, {"window": 4}, "work_per_step", "max_work"),
    ],
)
def test_host_limits_name_the_value_and_the_limit(text, gpt, training, field, key):
    with pytest.raises(ConfigError) as info:
        host_configs(text, gpt, {"epochs": 10, **training})
    assert info.value.field == field and info.value.key == key
    limit = {"max_tokens": MAX_TOKENS_PER_STEP, "max_epochs": MAX_EPOCHS, "max_text_len": MAX_TEXT_LEN}.get(key)
    if limit:
        assert str(limit) in t(f"accepted.{key}", "en", **info.value.params)
    if key == "max_work":
        assert info.value.value > MAX_STEP_WORK


def test_the_page_refuses_too_many_epochs_with_the_limit_in_both_languages():
    for lang in ("zh", "en"):
        at = open_train(lang)
        at.session_state[T_EPOCHS] = str(MAX_EPOCHS + 1)
        at.run()
        assert at.button(key="train_start").disabled
        assert at.error and str(MAX_EPOCHS) in at.error[0].value and str(MAX_EPOCHS + 1) in at.error[0].value
        assert at.error[0].value == t(
            "err.config",
            lang,
            field=t("field.epochs", lang),
            value=MAX_EPOCHS + 1,
            accepted=t("accepted.max_epochs", lang, limit=MAX_EPOCHS),
        )


def test_fused_adam_is_bitwise_torch_adam_fused():
    """Our FusedAdam (no torch._dynamo import) makes exactly the updates of torch.optim.Adam(fused=True)."""
    ours, theirs = build(SEED_TEXT, SMALL, CFG), build(SEED_TEXT, SMALL, CFG)
    a, b = Trainer(ours), Trainer(theirs)
    b.optimizer = torch.optim.Adam(theirs.model.parameters(), lr=CFG.lr, fused=True)
    for _ in range(20):
        a.step(), b.step()
    assert ours.losses == theirs.losses
    assert all(torch.equal(p, q) for p, q in zip(ours.model.parameters(), theirs.model.parameters()))


POEM = "床前明月光疑是地上霜举头望明月低头思故乡"


@pytest.mark.parametrize(
    "text, training",
    [
        (SEED_TEXT, {}),
        (POEM, {"window": 6}),  # 20 windows in one batch
        (POEM, {"window": 6, "causal_mask": False}),
    ],
)
def test_adam_overlapping_the_backward_pass_gives_bitwise_the_plain_steps(text, training):
    """The helper thread's updates (and the FFN weight gradients it computes) change nothing."""
    cfg = TrainConfig(**{**CFG.to_dict(), **training, "epochs": 20})
    plain, overlapped = build(text, SMALL, cfg), build(text, SMALL, cfg)
    a, b = Trainer(plain, overlap=False), Trainer(overlapped, overlap=True)
    for _ in range(12):
        a.step(), b.step()
    assert plain.losses == overlapped.losses and len(set(plain.losses)) == 12
    assert all(torch.equal(p, q) for p, q in zip(plain.model.parameters(), overlapped.model.parameters()))
    # the feed-forward weights' gradients went to the helper; every other parameter got its own
    handed = {id(blk.ffn.net[i].weight) for blk in overlapped.model.blocks for i in (0, 2)}
    grads = {id(p): p.grad for p in overlapped.model.parameters()}
    assert all(grads[i] is None for i in handed) and all(g is not None for i, g in grads.items() if i not in handed)
    assert all(g is not None for g in (p.grad for p in plain.model.parameters()))


def test_the_seed_config_overlaps_and_a_helper_error_reaches_the_training_thread(monkeypatch):
    assert Trainer(build(SEED_TEXT, SEED_GPT, CFG)).overlap and not Trainer(build(SEED_TEXT, SMALL, CFG)).overlap
    record = build(SEED_TEXT, SMALL, CFG)
    trainer = Trainer(record, overlap=True)
    trainer.step()
    threads = []

    def fails(idx, grads=None):  # whichever thread (the helper, or the training thread taking its share) runs it
        threads.append(threading.current_thread().name)
        raise MemoryError("no memory for the update")

    monkeypatch.setattr(trainer.optimizer, "_update", fails)
    with pytest.raises(MemoryError, match="no memory"):
        trainer.step()
    assert threads and len(record.losses) == 1  # re-raised in the training thread; the failed step is not counted


def test_using_a_stopped_model_says_so_instead_of_offering_it_again():
    at = small_settings(open_train(), train_epochs=1000)
    at.button(key="train_start").click().run()
    job = at.session_state[K_JOB]
    at.button(key="train_pause").click().run()
    wait_until(lambda: job.status == "paused")
    at.button(key="train_stop").click().run()
    job.join(60)
    at.run()
    assert job.status == "stopped" and any(
        w.value == t("train.stopped", "en", steps=len(job.losses)) for w in at.warning
    )
    at.button(key="train_use_stopped").click().run()
    assert at.session_state[K_OWN] is job.result
    assert [s.value for s in at.success] == [t("train.stopped_in_use", "en", steps=len(job.result.losses))]
    assert not at.warning and not [b for b in at.button if b.key == "train_use_stopped"]
