"""Generation (tinygpt.generate) and the Predict page (AppTest, both languages)."""

from __future__ import annotations

import math
from urllib.parse import parse_qs

import numpy as np
import pytest
import torch
from helpers import SMALL, open_link, seed_model, small_model, tables
from streamlit.testing.v1 import AppTest

from tinygpt.config import GPTConfig
from tinygpt.generate import (
    MAX_NEW_CHARS,
    MAX_TEMPERATURE,
    DecodeConfig,
    crop_context,
    generate,
    next_char_probs,
    sampling_distribution,
    training_targets,
)
from tinygpt.i18n import t
from tinygpt.training.train import new_model
from tinygpt.ui.views.predict_table import P_CONTEXT_LEN, P_N_NEW, P_PREFIX, P_SEED, P_STEP, P_STRATEGY, P_TAU
from tinygpt.vocab import CharVocab, UnknownCharError

VOCAB = CharVocab(tuple("你好世界"))
KNOWN = "你 好 世 界"


def text_of(steps) -> str:
    return "".join(s.chosen for s in steps)


@pytest.fixture(scope="module")
def untrained():
    """An untrained small model: its distributions are spread out, so sampling really varies."""
    return new_model(SMALL, 0).eval()


# ---- the model core ---------------------------------------------------------------------------


def test_seed_model_continues_你_with_好世界_greedily():
    record = seed_model()
    steps = generate(record.model, record.vocab, "你", 3, trained_len=record.window)
    assert text_of(steps) == "好世界"
    assert [s.context for s in steps] == ["你", "你好", "你好世"]
    for s in steps:
        assert abs(float(s.probs.sum()) - 1) < 1e-5 and float(s.probs.max()) > 0.99
        assert torch.equal(s.sampling_probs, torch.nn.functional.one_hot(s.probs.argmax(), 4).float())


def test_per_position_distribution_is_the_seed_shift_with_its_training_targets():
    record = seed_model()
    probs = next_char_probs(record.model, record.vocab, "你好世界")  # (4, 4)
    assert probs.shape == (4, 4) and torch.allclose(probs.sum(-1), torch.ones(4), atol=1e-5)
    assert record.vocab.decode(probs.argmax(-1)) == "好世界你"
    assert training_targets(record.text, record.window, "你好世界你") == ["好", "世", "界", "你", ""]
    assert training_targets(record.text, record.window, "好世") == ["", ""]  # 好 was never at position 0


def test_training_targets_list_every_target_of_an_ambiguous_context():
    # window 1 on 你好你世: inputs 你 好 你 世 -> targets 好 你 世 你; after 你 both 好 and 世 were taught
    assert training_targets("你好你世", 1, "你") == ["好世"]
    assert training_targets("你好你世", 1, "你好") == ["好世", ""]


def test_steps_from_the_training_length_on_are_marked_beyond_training():
    record = seed_model()  # trained on one 4-character sequence: positions 0..3
    assert record.window == 4
    steps = generate(record.model, record.vocab, "你", 6, trained_len=record.window)
    assert [s.position for s in steps] == [0, 1, 2, 3, 4, 5]
    assert [s.beyond_training for s in steps] == [False, False, False, False, True, True]


def test_temperature_zero_gives_the_same_output_on_every_run(untrained):
    greedy = text_of(generate(untrained, VOCAB, "你", 12))
    for seed in (0, 1, 2, 3):
        assert text_of(generate(untrained, VOCAB, "你", 12, DecodeConfig(temperature=0.0, seed=seed))) == greedy
    record = seed_model()
    assert (
        text_of(generate(record.model, record.vocab, "你", 7, DecodeConfig(temperature=0.0, seed=5)))
        == "好世界你好世界"
    )


def test_top_k_1_equals_greedy(untrained):
    greedy = text_of(generate(untrained, VOCAB, "你好", 12))
    for seed in (0, 1, 2):
        assert (
            text_of(
                generate(untrained, VOCAB, "你好", 12, DecodeConfig(temperature=MAX_TEMPERATURE, top_k=1, seed=seed))
            )
            == greedy
        )


def test_sampling_with_a_fixed_seed_repeats_and_another_seed_differs(untrained):
    hot = DecodeConfig(temperature=1.0, seed=0)
    first = text_of(generate(untrained, VOCAB, "你", 20, hot))
    assert first == text_of(generate(untrained, VOCAB, "你", 20, hot))
    assert first != text_of(generate(untrained, VOCAB, "你", 20, DecodeConfig(temperature=1.0, seed=1)))
    record = seed_model()  # the trained model only varies when τ flattens its near one-hot distribution
    a = text_of(generate(record.model, record.vocab, "你", 20, DecodeConfig(temperature=MAX_TEMPERATURE, seed=0)))
    assert a == text_of(
        generate(record.model, record.vocab, "你", 20, DecodeConfig(temperature=MAX_TEMPERATURE, seed=0))
    )
    assert a != text_of(
        generate(record.model, record.vocab, "你", 20, DecodeConfig(temperature=MAX_TEMPERATURE, seed=1))
    )


def test_a_run_continued_or_cut_short_is_the_run_made_in_one_call():
    from tinygpt.ui.predict.predict_view import GenerationRuns

    record = small_model(epochs=30)
    runs = GenerationRuns(record, max_runs=2)

    def fields(steps):
        return [
            (s.context, s.cropped, s.chosen, s.beyond_training, s.probs.tolist(), s.sampling_probs.tolist())
            for s in steps
        ]

    for decode, context_len in (
        (DecodeConfig(), record.model.cfg.max_len),
        (DecodeConfig(temperature=2.0, seed=3), 3),
        (DecodeConfig(temperature=5.0, top_k=2, seed=1), 16),
    ):
        for n in (3, 9, 4, 0, 12):  # longer (continued), shorter (cut), longer again
            one_call = generate(record.model, record.vocab, "你", n, decode, record.window, context_len)
            assert fields(runs.steps("你", n, decode, context_len)) == fields(one_call)
    hot = DecodeConfig(temperature=5.0, seed=0)
    assert text_of(runs.steps("你", 20, hot, 16)) != text_of(
        runs.steps("你", 20, DecodeConfig(temperature=5.0, seed=1), 16)
    )
    assert len(runs._runs) == 2  # the oldest run was dropped
    with pytest.raises(ValueError, match="n_new=65"):
        runs.steps("你", MAX_NEW_CHARS + 1, hot, 16)


def test_a_new_temperature_runs_the_model_only_on_contexts_not_fed_before():
    from tinygpt.ui.predict.predict_view import GenerationRuns, RememberedForward

    record = seed_model()
    runs = GenerationRuns(record)
    fed = []
    forward = runs.model.model
    runs.model.model = lambda ids: fed.append(tuple(ids[0].tolist())) or forward(ids)
    cool, warm = DecodeConfig(temperature=0.5, seed=0), DecodeConfig(temperature=0.55, seed=0)
    first = runs.steps("你", 8, cool, 128)
    assert len(fed) == 8 and len(set(fed)) == 8
    again = runs.steps("你", 8, warm, 128)  # the trained model picks the same characters at τ 0.55
    assert text_of(again) == text_of(first) == "好世界你好世界你" and len(fed) == 8
    one_call = generate(record.model, record.vocab, "你", 8, warm, record.window, 128)
    assert [s.sampling_probs.tolist() for s in again] == [s.sampling_probs.tolist() for s in one_call]
    assert [s.sampling_probs.tolist() for s in again] != [s.sampling_probs.tolist() for s in first]
    small = RememberedForward(record.model, max_floats=3 * 4 * 4)  # three (1, 4, 4) outputs
    for text in ("你好世界", "好世界你", "世界你好", "界你好世"):
        small(record.vocab.encode(text)[None])
    assert len(small._outputs) == 3 and small._floats == 48  # the oldest was dropped


def test_cropped_context_is_the_last_max_len_characters_and_positions_stay_below_max_len():
    cfg = GPTConfig(vocab_size=4, max_len=4, d_model=16, n_heads=2, n_layers=1, d_ff=32)
    model = new_model(cfg, 0).eval()
    seen: list[int] = []
    hook = model.position_embedding.register_forward_pre_hook(lambda m, args: seen.extend(args[0].tolist()))
    try:
        prefix = "你"
        steps = generate(model, VOCAB, prefix, 8)
    finally:
        hook.remove()
    text = prefix + text_of(steps)
    for i, s in enumerate(steps):
        so_far = text[: len(prefix) + i]
        assert s.context == so_far[-4:]
        assert s.cropped == (len(so_far) > 4)
    assert [s.cropped for s in steps] == [False] * 4 + [True] * 4
    assert max(seen) == 3 and min(seen) == 0
    long = generate(model, VOCAB, "你好世界你好", 2)
    assert long[0].context == "世界你好" and long[0].cropped and long[0].position == 3
    window2 = generate(model, VOCAB, "你好世界", 3, context_len=2)
    assert [len(s.context) for s in window2] == [2, 2, 2] and window2[0].context == "世界"
    assert crop_context("你好世界你", 4) == ("好世界你", True) and crop_context("你好", 4) == ("你好", False)


def test_sampling_distribution_reshapes_by_temperature_and_top_k():
    p = torch.tensor([0.5, 0.3, 0.15, 0.05])
    assert torch.allclose(sampling_distribution(p, DecodeConfig(temperature=1.0)), p, atol=1e-6)
    sharp = sampling_distribution(p, DecodeConfig(temperature=0.5))  # p_τ ∝ p²
    assert torch.allclose(sharp, p**2 / (p**2).sum(), atol=1e-6)
    assert torch.allclose(sharp, torch.softmax(torch.log(p) / 0.5, -1), atol=1e-6)
    top2 = sampling_distribution(p, DecodeConfig(temperature=1.0, top_k=2))
    assert torch.allclose(top2, torch.tensor([0.625, 0.375, 0.0, 0.0]), atol=1e-6) and top2[2] == 0 and top2[3] == 0
    whole = sampling_distribution(p, DecodeConfig(temperature=2.0, top_k=0))
    assert torch.equal(sampling_distribution(p, DecodeConfig(temperature=2.0, top_k=9)), whole)
    flat = sampling_distribution(p, DecodeConfig(temperature=MAX_TEMPERATURE))
    assert abs(float(flat.sum()) - 1) < 1e-6 and float(flat.max() - flat.min()) < float(p.max() - p.min()) / 2
    tiny = sampling_distribution(torch.tensor([1e-40, 0.4, 0.6, 0.0]), DecodeConfig(temperature=1e-6))
    assert torch.isfinite(tiny).all() and tiny[2] == 1.0
    assert torch.equal(sampling_distribution(p, DecodeConfig(top_k=1, temperature=3.0)), torch.tensor([1.0, 0, 0, 0]))


def test_generate_bounds_and_bad_arguments(untrained):
    assert generate(untrained, VOCAB, "你", 0) == []
    assert len(generate(untrained, VOCAB, "你", MAX_NEW_CHARS)) == MAX_NEW_CHARS
    with pytest.raises(ValueError, match="empty"):
        generate(untrained, VOCAB, "", 3)
    for n in (-1, MAX_NEW_CHARS + 1):
        with pytest.raises(ValueError, match=f"n_new={n}"):
            generate(untrained, VOCAB, "你", n)
    with pytest.raises(UnknownCharError) as err:
        generate(untrained, VOCAB, "你们好吗", 3)
    assert err.value.unknown == ["们", "吗"]
    with pytest.raises(ValueError, match="context_len=0"):
        generate(untrained, VOCAB, "你", 3, context_len=0)
    for bad in (
        dict(temperature=-0.1),
        dict(temperature=MAX_TEMPERATURE + 1),
        dict(temperature=math.nan),
        dict(top_k=-1),
    ):
        with pytest.raises(ValueError):
            DecodeConfig(**bad)


# ---- the page (AppTest) -----------------------------------------------------------------------


def keep(at: AppTest, key: str, value: object) -> None:
    """Set a Predict control as a student's change would (the widget keeps it: persist_state)."""
    at.session_state[key] = value


def open_predict(lang: str, **state) -> AppTest:
    """The Predict page in ``lang`` with keyed widgets set through session state."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    at.query_params["lang"] = lang
    at.run()
    at.query_params["model"] = "own" if "own_model" in state else "textbook"  # else: the context example
    at.switch_page("pages/predict.py")
    for key, value in state.items():
        keep(at, key, value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def result_of(at: AppTest) -> str:
    """The generated characters of the "Result: prefix **generated**" line."""
    lang = at.session_state["lang"]
    start = t("predict.result", lang, prefix="", generated="").split("*")[0].rstrip()
    return next(m.value for m in at.markdown if m.value.startswith(start)).split("**")[1]


def step_links(at) -> list:
    """The page's links to a generation step's context on the Attention page (with a query), not
    the next step of the student's path (``predict.next_step``), which is always there."""
    return [link for link in at.main.page_link if link.proto.query_string]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_title_word_autoregressive_is_explained_in_the_first_sentence(lang):
    at = open_predict(lang)
    word = {"en": "Autoregressive", "zh": "自回归"}[lang]
    assert word in at.title[0].value
    intro = at.markdown[0].value  # the page's first text, right under the title
    assert intro == t("predict.intro", lang) and intro.startswith(f"**{word}**")
    first = intro.split(". " if lang == "en" else "。")[0]
    assert {"en": "own output", "zh": "自己的输出"}[lang] in first  # what it means, in plain words


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_next_step_of_the_path_is_a_link_to_the_attention_page_above_the_numbers(lang):
    at = open_predict(lang)
    nexts = [link for link in at.main.page_link if link.proto.label == t("predict.next_step", lang)]
    assert len(nexts) == 1 and "attention" in nexts[0].proto.page
    assert at.get("page_link")[0].proto.label == t("predict.next_step", lang)  # before every step's link


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_positions_table_and_charts_are_drawn_only_once_the_student_opens_them(lang):
    at = open_predict(lang)  # the context example: 15 positions
    (closed,) = [e for e in at.expander if e.key == "predict_positions"]
    assert closed.label == t("predict.per_position_open", lang)
    # the first view: the generation's step (one chart, one table) and the way on, no 15-row table or panel grid
    assert len(at.get("vega_lite_chart")) == 1 and len(tables(at)) == 1
    assert list(tables(at)[0].value.columns[:2]) == [t("predict.col_char", lang), t("predict.col_chosen", lang)]
    assert "predict_panels_figure_png" not in {b.key for b in at.get("download_button")}
    assert [link.proto.label for link in at.main.page_link][0] == t("predict.next_step", lang)
    at.session_state["predict_positions"] = True
    at.run()
    prefix = at.text_input(key=P_PREFIX).value
    assert len(at.get("vega_lite_chart")) == 2 and len(tables(at)) == 2
    positions = tables(at)[0].value
    assert len(positions) == len(prefix) and positions.iloc[-1][t("predict.col_context", lang)] == prefix
    assert "predict_panels_figure_png" in {b.key for b in at.get("download_button")}


def test_the_context_length_is_kept_while_its_expander_is_closed():
    at = open_predict("en", predict_prefix="你好世", predict_n_new=1)
    assert "predict_context_len" not in {s.key for s in at.slider}  # closed: the slider is not drawn
    at.session_state["predict_context_box"] = True
    at.run()
    at.slider(key=P_CONTEXT_LEN).set_value(2).run()
    fed = t("predict.fed", "en", T=2, last=1, context="好世")
    assert fed in texts(at.markdown)
    at.session_state["predict_context_box"] = False
    at.run()
    assert "predict_context_len" not in {s.key for s in at.slider} and fed in texts(at.markdown)
    assert at.session_state[P_CONTEXT_LEN] == 2


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_names_unknown_characters_and_shows_the_known_ones(lang):
    at = open_predict(lang, predict_prefix="你们好 ")
    assert len(at.error) == 1
    space = "U\\+0020"
    assert at.error[0].value == t(
        "err.unknown_chars", lang, unknown=f"们 ␣ \\({space}\\)", known=KNOWN
    )  # Markdown-escaped
    assert not tables(at) and not step_links(at)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_asks_for_a_prefix_when_it_is_empty_or_blank(lang):
    at = open_predict(lang, predict_prefix="")
    assert texts(at.warning) == [t("predict.empty", lang, known=KNOWN)] and not tables(at)
    at.session_state[P_PREFIX] = "   "
    at.run()
    assert texts(at.warning) == [t("predict.blank", lang, known=KNOWN)] and not tables(at) and not at.exception


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_crops_a_prefix_longer_than_max_len(lang):
    prefix = "你好世界" * 33  # 132 > max_len 128
    at = open_predict(lang, predict_prefix=prefix, predict_n_new=2, predict_positions=True)
    assert t("predict.too_long", lang, n=132, max_len=128) in texts(at.info)
    frame = tables(at)[0].value
    assert len(frame) == 128 and frame.iloc[-1][t("predict.col_context", lang)] == prefix[-128:]
    # one message for one crop: step 1 feeds the cropped prefix, which the message above already says
    assert t("predict.cropped", lang, n=132, kept=128, dropped=4, gone="你好世界") not in texts(at.info)
    link = parse_qs(step_links(at)[0].proto.query_string)
    assert link["text"] == [prefix[-128:]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_with_n_zero_generates_nothing_and_says_so(lang):
    at = open_predict(lang, predict_n_new=0, predict_positions=True)
    assert texts(at.info) == [t("predict.n_zero", lang)]
    assert len(tables(at)) == 1 and not step_links(at) and not at.button  # the positions' table only


def test_page_generates_the_maximum_number_of_characters():
    at = open_predict("en", predict_prefix="你", predict_n_new=MAX_NEW_CHARS)
    assert result_of(at) == ("好世界你" * 16)
    assert at.slider(key=P_STEP).max == MAX_NEW_CHARS
    keep(at, "predict_step", MAX_NEW_CHARS)
    at.run()
    assert "#### " + t("predict.step_title", "en", n=MAX_NEW_CHARS, total=MAX_NEW_CHARS) in texts(at.markdown)
    assert t("predict.beyond", "en", pos=MAX_NEW_CHARS - 1, last=3, window=4) in texts(at.warning)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_temperature_zero_and_maximum(lang):
    at = open_predict(
        lang,
        predict_prefix="你",
        predict_n_new=6,
        predict_strategy="temperature",
        predict_temperature=0.0,
        predict_seed=3,
    )
    assert texts(at.info) == [t("predict.tau_zero", lang)]
    assert result_of(at) == "好世界你好世"
    keep(at, "predict_temperature", MAX_TEMPERATURE)
    at.run()
    assert texts(at.info) == [t("predict.tau_max", lang, tau=MAX_TEMPERATURE)]
    detail = tables(at)[0].value  # the step's table: the positions' is closed
    sampled = detail[t("predict.col_sampled", lang)].to_numpy(dtype=float)
    assert not np.isnan(sampled).any() and abs(sampled.sum() - 1) < 1e-3 and sampled.min() > 0.05  # flattened, no NaN


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_top_k_zero_one_and_larger_than_the_vocabulary(lang):
    at = open_predict(
        lang,
        predict_prefix="你",
        predict_n_new=6,
        predict_strategy="top_k",
        predict_temperature=MAX_TEMPERATURE,
        predict_top_k=0,
    )
    assert texts(at.info) == [t("predict.tau_max", lang, tau=MAX_TEMPERATURE), t("predict.k_zero", lang, V=4)]
    keep(at, "predict_top_k", 1)
    at.run()
    assert t("predict.k_one", lang) in texts(at.info) and result_of(at) == "好世界你好世"
    keep(at, "predict_top_k", 7)
    at.run()
    assert t("predict.k_large", lang, k=7, V=4) in texts(at.info) and not at.exception
    keep(at, "predict_top_k", 2)
    at.run()
    sampled = tables(at)[0].value[t("predict.col_sampled", lang)].to_numpy(dtype=float)
    assert (sampled == 0).sum() == 2 and abs(sampled.sum() - 1) < 1e-3  # only two characters stay


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_top_k_or_seed_out_of_range_is_refused_in_the_pages_language(lang):
    from tinygpt.ui.views.predict_table import MAX_SEED, MAX_TOP_K, P_TOP_K

    at = open_predict(lang, predict_prefix="你", predict_strategy="top_k", predict_top_k=2, predict_seed=7)
    for key, label, typed, hi, kept in (
        (P_TOP_K, "predict.top_k", MAX_TOP_K + 1, MAX_TOP_K, 2),
        (P_TOP_K, "predict.top_k", -3, MAX_TOP_K, 2),
        (P_SEED, "predict.seed", MAX_SEED + 1, MAX_SEED, 7),
    ):
        at.number_input(key=key).set_value(typed).run()
        refused = t("err.number_refused", lang, label=t(label, lang), value=str(typed), lo="0", hi=str(hi), kept=kept)
        assert refused in texts(at.warning) and not at.exception
        assert at.number_input(key=key).value == kept
    at.number_input(key=P_TOP_K).set_value(3).run()  # in range: taken, no message
    assert at.number_input(key=P_TOP_K).value == 3 and not at.warning


def test_page_steps_through_generation_and_links_each_step_to_the_attention_page():
    at = open_predict("en", predict_prefix="你好", predict_n_new=4)
    assert result_of(at) == "世界你好"
    assert "#### " + t("predict.step_title", "en", n=1, total=4) in texts(at.markdown)
    assert parse_qs(step_links(at)[0].proto.query_string) == {
        "text": ["你好"],
        "layer": ["0"],
        "head": ["0"],
        "step": ["softmax"],
        "lang": ["en"],
    }
    for n, context in ((2, "你好世"), (3, "你好世界"), (4, "你好世界你")):
        at.button(key="predict_next").click().run()
        assert "#### " + t("predict.step_title", "en", n=n, total=4) in texts(at.markdown)
        assert parse_qs(step_links(at)[0].proto.query_string)["text"] == [context]
    assert t("predict.beyond", "en", pos=4, last=3, window=4) in texts(at.warning)
    assert at.button(key="predict_next").disabled
    at.button(key="predict_prev").click().run()
    assert "#### " + t("predict.step_title", "en", n=3, total=4) in texts(at.markdown) and not at.warning
    at.session_state["predict_all_steps"] = True  # the table of all steps, drawn once opened
    at.run()
    steps = tables(at)[1].value
    assert list(steps[t("predict.col_fed", "en")]) == ["你好", "你好世", "你好世界", "你好世界你"]
    assert list(steps[t("predict.col_beyond", "en")]) == ["no", "no", "no", "yes"]


def test_markdown_characters_and_spaces_are_shown_as_typed():
    """A vocabulary may hold any character: $, backslash and a space must appear in the messages."""
    from tinygpt.config import TrainConfig
    from tinygpt.training.train import train

    record = train("a$b\\ c", SMALL, TrainConfig(lr=3e-3, epochs=3, early_stop_loss=0.0))
    at = open_predict("en", own_model=record, predict_prefix="a$\\x")
    assert at.error[0].value == t("err.unknown_chars", "en", unknown="x", known=r"a \$ b \\ ␣ \(U\+0020\) c")
    at = open_predict("en", own_model=record, predict_prefix="a$ ", predict_n_new=1)
    fed = next(m.value for m in at.markdown if m.value.startswith("Context fed"))
    assert fed.endswith("**a\\$␣**")  # the trailing space is visible and the bold still closes


@pytest.mark.parametrize("V", [2, 4, 5, 8, 12, 26, 60])
def test_next_character_panels_fit_the_page_width(V):
    from tinygpt.explanations.charts import panel_columns, panel_width

    columns = panel_columns(V, panels=8)
    assert 1 <= columns <= 4
    assert columns == 1 or columns * (panel_width(V) + 70) <= 1000  # side by side only when they fit
    assert panel_columns(4, panels=8) == 4 and panel_columns(8, panels=8) == 2  # the seed's 4 characters: a row of 4


# ---- marks and small probabilities -----------------------------------------------------------


def test_format_probability_writes_small_values_in_scientific_notation():
    from tinygpt.formatting import format_probability

    assert format_probability(0.11734) == "0.1173"
    assert format_probability(0.001) == "0.0010"
    assert format_probability(7.968e-06) == "7.97e-06"
    assert format_probability(0.000999) == "9.99e-04"
    assert format_probability(0.0) == "0" and format_probability(1.0) == "1.0000"


def test_format_change_keeps_a_small_change_visible_with_its_sign():
    from tinygpt.formatting import format_change

    assert format_change(-1.86e-06) == "-1.86e-06" and format_change(2.5e-04) == "+2.50e-04"
    assert format_change(0.1234) == "+0.1234" and format_change(-0.5) == "-0.5000" and format_change(0.0) == "0"


def test_generation_chart_marks_the_target_and_the_chosen_character_apart():
    from tinygpt.explanations.charts import paired_probability_bars

    def marks(chart) -> list[tuple[str, str]]:
        spec = chart.to_dict()
        data = [rows for rows in spec["datasets"].values() if rows and "mark" in rows[0]]
        return sorted((r["char"], r["mark"]) for rows in data for r in rows)

    probs = [0.1, 0.2, 0.3, 0.4]
    chart = paired_probability_bars(
        probs, probs, "你好世界", chosen="界", target="好", chosen_label="C", target_label="T"
    )
    assert marks(chart) == [("好", "T"), ("界", "C")]
    shapes = chart.to_dict()["layer"][1]["encoding"]["shape"]["scale"]
    assert shapes == {"domain": ["T", "C"], "range": ["triangle-down", "diamond"]}
    assert marks(paired_probability_bars(probs, probs, "你好世界", chosen="界", target="", chosen_label="C")) == [
        ("界", "C")
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_marks_target_and_sampled_choice_apart_and_writes_small_p_in_scientific_notation(lang):
    # seed 9 at τ = 5 draws 界 after 你, whose training target is 好; the model's own p(界) is about 8e-06
    at = open_predict(
        lang,
        predict_prefix="你",
        predict_n_new=1,
        predict_strategy="temperature",
        predict_temperature=MAX_TEMPERATURE,
        predict_seed=9,
    )
    assert MAX_TEMPERATURE == 5.0 and result_of(at) == "界"
    detail = tables(at)[0].value
    char, chosen, target = (t(f"predict.col_{c}", lang) for c in ("char", "chosen", "target_short"))
    assert detail.set_index(char)[chosen].to_dict() == {"你": "", "好": "", "世": "", "界": "◆"}
    assert detail.set_index(char)[target].to_dict() == {"你": "", "好": "▼", "世": "", "界": ""}
    assert t("predict.marks_legend", lang) in texts(at.caption)
    chose = next(
        m.value
        for m in at.markdown
        if m.value.startswith(t("predict.chose_sampled", lang, chosen="", seed=0, q="", p="")[:4])
    )
    p_text = chose.rsplit("p = ", 1)[1].rstrip(")）.。")
    assert "e-0" in p_text and 1e-6 < float(p_text) < 1e-4 and "0.0000" not in chose
    at.session_state["predict_positions"] = True  # every position's distribution, drawn once opened
    at.run()
    positions = tables(at)[0].value
    assert list(positions.columns[:5]) == [
        t(f"predict.col_{c}", lang) for c in ("pos", "context", "top", "expected", "match")
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_shows_no_target_mark_where_there_is_no_target(lang):
    at = open_predict(lang, predict_prefix="好世", predict_n_new=1)  # 好世 never starts a training window
    assert t("predict.unseen", lang) in texts(at.caption)
    assert t("predict.marks_legend_no_target", lang) in texts(at.caption)
    assert "▼" not in tables(at)[0].value[t("predict.col_target_short", lang)].tolist()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_prefix_travels_in_the_url_so_a_class_link_opens_the_same_prediction(lang):
    at = open_predict(lang, predict_prefix="世界你")
    assert at.query_params["prefix"] == "世界你"
    fresh = AppTest.from_file("../streamlit_app.py", default_timeout=240)
    fresh.query_params.update({"lang": lang, "prefix": "世界你", "model": "textbook"})
    fresh.session_state["predict_positions"] = True
    fresh.run()
    fresh.switch_page("pages/predict.py").run()
    assert not fresh.exception and not fresh.warning
    assert fresh.text_input(key=P_PREFIX).value == "世界你"
    assert tables(fresh)[0].value.shape[0] == 3  # one row per position of the link's prefix


def test_back_from_another_page_the_generation_is_as_the_student_left_it():
    at = open_predict("en")
    at.text_input(key=P_PREFIX).set_value("你好").run()
    at.slider(key=P_N_NEW).set_value(10).run()
    at.radio(key=P_STRATEGY).set_value("temperature").run()
    at.slider(key=P_TAU).set_value(1.5).run()
    at.number_input(key=P_SEED).set_value(3).run()
    at.button(key="predict_next").click().run()
    before = result_of(at)
    assert len(before) == 10 and at.session_state[P_STEP] == 2
    for page in ("theory", "predict"):  # a page switch clears the URL's query, as st.navigation does
        at.query_params.clear()
        at.query_params["lang"] = "en"
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key=P_PREFIX).value == "你好" and at.slider(key=P_N_NEW).value == 10
    assert at.radio(key=P_STRATEGY).value == "temperature" and at.slider(key=P_TAU).value == 1.5
    assert at.number_input(key=P_SEED).value == 3 and at.session_state[P_STEP] == 2
    assert result_of(at) == before and not at.warning


def test_another_model_forgets_the_prefix_kept_for_the_last_one():
    from tinygpt.examples import EXAMPLES

    at = open_predict("en")
    at.text_input(key=P_PREFIX).set_value("你好").run()
    at.button_group(key="model_choice").set_value("context").run()  # the prefix belonged to the textbook model
    shown = at.text_input(key=P_PREFIX).value  # the context model's own text, up to its max_len
    assert not at.exception and len(shown) > 2 and EXAMPLES["context"].text.startswith(shown)
    at.button_group(key="model_choice").set_value("textbook").run()
    assert at.text_input(key=P_PREFIX).value == "你好世界"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_links_tau_between_the_sliders_stops_is_put_on_the_nearest_and_the_page_says_so(lang):
    at = open_link("predict", lang, tau="0.337")
    assert at.session_state["predict_temperature"] == pytest.approx(0.35) and at.query_params["tau"] == "0.35"
    said = [w.value for w in at.warning] + [i.value for i in at.info]
    note = t("predict.url_snap_tau", lang, value="0.337", used="0.35", step="0.05")
    assert any(note in x for x in said), said
    on_stop = open_link("predict", lang, tau="0.5")
    assert not any(note[:12] in x for x in [w.value for w in on_stop.warning] + [i.value for i in on_stop.info])
