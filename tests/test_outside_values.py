"""Values from outside: every number of a link, the Theory page's and a lesson's parameters read by the
one strict reader (tinygpt.numbers), and invisible, combining and bidirectional characters named the one
way (tinygpt.formatting.char_name / shown_text) in every message that repeats them."""

from __future__ import annotations

import pytest
from helpers import open_page
from hypothesis import given, settings
from hypothesis import strategies as st

from tinygpt.attention import STEP_IDS
from tinygpt.config import ConfigError
from tinygpt.explanations.theory import CONCEPT_IDS
from tinygpt.formatting import char_name
from tinygpt.i18n import t
from tinygpt.training.links import V1_DEFAULTS, decode_edits, decode_train, read_theory_params
from tinygpt.ui.views.lesson import MAX_LESSON_NAMES, parse_lesson
from tinygpt.ui.views.predict_table import P_PREFIX

HUGE = "9" * 4400  # int() refuses more than 4,300 digits


# ---------------------------------------------------------------- train= and edits=


@pytest.mark.parametrize(
    "setting, raw",
    [
        ("epochs", "１０"),  # full-width: int() reads it, the reader does not
        ("epochs", "²"),  # isdigit() says yes, int() raises
        ("epochs", HUGE),
        ("seed", HUGE),
        ("d_model", "٣٢"),
        ("lr", "１e-3"),
        ("lr", "nan"),
        ("window", "-1"),
    ],
)
def test_a_train_link_refuses_odd_digits_naming_the_value(setting, raw):
    with pytest.raises(ConfigError) as refused:
        decode_train(f"v1;{setting}={raw};text=你好")
    exc = refused.value
    assert exc.field == setting and exc.key in ("int_range", "float_range", "lr")  # lr: the Train page's wording
    assert exc.value == (raw if len(raw) <= 30 else raw[:30] + "…")


def test_a_train_link_reads_plain_digits_and_its_ranges_are_the_hosts():
    text, gpt, training = decode_train("v1;d_model=32;n_heads=4;n_layers=2;d_ff=64;epochs=+10;seed= 7 ;text=你好")
    assert (gpt.d_model, training.epochs, training.seed) == (32, 10, 7)
    with pytest.raises(ConfigError) as refused:
        decode_train("v1;epochs=5001;text=你好")
    assert refused.value.params == {"lo": 1, "hi": 5000}


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(sorted(V1_DEFAULTS)), st.text(max_size=12), max_size=4),
    st.text(max_size=8),
)
def test_any_train_link_decodes_or_is_refused_with_a_config_error(fields, text):
    spec = ";".join(["v1", *(f"{k}={v}" for k, v in fields.items()), f"text={text}"])
    try:
        decode_train(spec)
    except ConfigError as exc:  # the value as a message shows it: shortened, nothing invisible left
        assert exc.field and all(c == " " or char_name(c) == c for c in str(exc.value))
        assert len(str(exc.value)) <= 30 * len("⟨U+10FFFF⟩") + 1


@pytest.mark.parametrize("raw", ["0:²:0:1", "０:0:0:1", "0:0:" + HUGE + ":1", "0:0:0:１", "0:0:0:nan", "0:-1:0:1"])
def test_score_edits_with_odd_digits_are_refused_with_a_message_never_an_exception(raw):
    with pytest.raises(ConfigError) as refused:
        decode_edits(raw, 2, 100.0)
    assert refused.value.key == "edits" and len(refused.value.value) <= 41  # shortened to 40 and "…"
    assert t("accepted.edits", "zh", **refused.value.params)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789:,.-e²３ nan"), max_size=30))
def test_any_edits_value_decodes_or_is_refused_with_a_config_error(raw):
    try:
        edits = decode_edits(raw, 4, 100.0)
    except ConfigError as exc:
        assert exc.key == "edits"
    else:
        assert all(0 <= h < 4 and i >= 0 and j >= 0 and abs(v) <= 100 for h, i, j, v in edits)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_link_with_thousands_of_digits_gets_a_message_in_the_users_language(lang):
    at = open_page("predict", lang, model="own", train=f"v1;epochs={HUGE};text=你好")
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith(t("link.bad", lang, error="")[:6])
    assert f"{t('field.epochs', lang)} = {'9' * 30}…" in warning and HUGE not in warning
    assert at.button_group(key="model_choice").value == "textbook"


# ---------------------------------------------------------------- the Theory page's parameters


def test_theory_parameters_are_read_strictly():
    assert read_theory_params("Softmax ", "mask", CONCEPT_IDS, STEP_IDS) == ("softmax", "mask", [])
    assert read_theory_params(None, "mask", CONCEPT_IDS, STEP_IDS) == (None, None, [])  # step= alone: no arrival
    cid, sid, errors = read_theory_params("²", "mask", CONCEPT_IDS, STEP_IDS)
    assert (cid, sid) == (None, None) and [e.field for e in errors] == ["concept"]
    assert errors[0].params == {"options": ", ".join(CONCEPT_IDS)}
    cid, sid, errors = read_theory_params("qkv", "step\u202e", CONCEPT_IDS, STEP_IDS)
    assert (cid, sid) == ("qkv", None) and errors[0].value == "step⟨U+202E⟩"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_theory_page_names_a_bad_concept_in_the_users_language(lang):
    at = open_page("theory", lang, concept="①")
    warnings = [w.value for w in at.warning]
    said = t("link.bad_param", lang, name="concept", value="①", accepted="")  # the message every page gives
    assert len(warnings) == 1 and warnings[0].startswith(said[: said.index("①") + 1])
    assert ", ".join(CONCEPT_IDS) in warnings[0]
    at = open_page("theory", lang, concept="softmax", step="x" * 5000)
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith(t("link.bad_param", lang, name="step", value="x" * 30 + "…", accepted="")[:40])


# ---------------------------------------------------------------- a lesson's parameters


def test_a_lesson_switch_is_read_strictly_and_names_are_bounded_and_named():
    pages = ["train", "predict", "attention", "theory"]
    lesson = parse_lesson({"lesson": "²", "pages": "predict"}, pages)
    assert lesson.pages == ("predict",) and [e.field for e in lesson.bad_values] == ["lesson"]
    assert parse_lesson({"lesson": " OFF "}, pages) is None and parse_lesson({"lesson": "²"}, pages).bad_values
    lesson = parse_lesson({"pages": "predict,\u202etheory", "show": "attn_mask,x\u200cy"}, pages)
    assert lesson.bad_pages == ("⟨U+202E⟩theory",) and lesson.bad_controls == ("x⟨U+200C⟩y",)
    lesson = parse_lesson({"hide": ",".join(f"c{i}" for i in range(100_000))}, pages)
    assert len(lesson.bad_controls) == MAX_LESSON_NAMES


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["lesson", "pages", "show", "hide"]), st.text(max_size=30)))
def test_any_lesson_parameters_parse(params):
    lesson = parse_lesson(params, ["train", "predict", "attention", "theory"])
    if lesson is not None:
        assert all(not any(c in name for c in "\u200c\u202e\u0301") for name in lesson.bad_controls)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_lesson_link_with_a_bad_switch_and_a_reversing_name_says_so_readably(lang):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../streamlit_app.py", default_timeout=300)
    at.query_params.update({"lang": lang, "lesson": "²", "show": "predict_prefix,\u202ehello"})
    at.run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("lesson = ²" in w for w in warnings)
    assert any("⟨U\\+202E⟩hello" in w for w in warnings) and not any("\u202e" in w for w in warnings)


# ---------------------------------------------------------------- named characters on every page


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("char, name", [("\u200c", "U+200C"), ("\u202e", "U+202E"), ("\u0301", "◌\u0301 (U+0301)")])
def test_the_attention_page_names_an_invisible_character_of_the_text(lang, char, name):
    at = open_page("attention", lang, model="textbook", text=f"你{char}好世界")
    shown = name.replace("+", "\\+").replace("(", "\\(").replace(")", "\\)")  # Markdown-escaped
    (refused,) = [w.value for w in at.warning]  # the link's text: refused, named, the page on its own text
    assert shown in refused and char not in refused.replace(shown, "")
    at.text_input(key="attn_text").set_value(f"你{char}好世界").run()  # typed: the page says which character
    (error,) = [e.value for e in at.error]
    assert error.startswith(t("err.unknown_chars", lang, unknown=shown, known="")[:8]) and shown in error
    assert char not in error.replace(name, "").replace(shown, "")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_predict_page_names_characters_the_same_way(lang):
    at = open_page("predict", lang, model="textbook")
    at.session_state[P_PREFIX] = "你\u200c好"
    at.run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "U\\+200C" in errors[0] and "\u200c" not in errors[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_link_messages_name_what_they_repeat_from_the_url(lang):
    at = open_page("predict", lang, model="\u202eown")
    (warning,) = [w.value for w in at.warning]
    assert "⟨U+202E⟩own" in warning.replace("\\", "") and "\u202e" not in warning
    at = open_page("predict", lang, model="own", train="v1;seed=1\u200c0;text=你好")
    (warning,) = [w.value for w in at.warning]
    assert "1⟨U+200C⟩0" in warning and "\u200c" not in warning


@pytest.mark.parametrize("bad", ["\u202e", "\u200c", "\u0007"])
def test_a_training_text_with_an_invisible_or_direction_changing_character_is_refused_naming_it(bad):
    from tinygpt.formatting import char_name
    from tinygpt.limits import host_configs
    from tinygpt.training.links import decode_train

    gpt = {"max_len": 16, "d_model": 32, "n_heads": 4, "n_layers": 1, "d_ff": 64, "norm": "pre", "positions": "learned"}
    training = {"lr": 1e-3, "epochs": 10, "seed": 0, "early_stop_loss": 0.0, "causal_mask": True, "window": None}
    text = f"{bad}床前明月光"
    with pytest.raises(ConfigError) as info:
        host_configs(text, gpt, training)
    assert info.value.key == "text_chars" and info.value.params == {"names": char_name(bad)}
    assert bad not in str(info.value.value)  # shown named, never raw
    with pytest.raises(ConfigError):  # a link carrying it is refused the same way
        decode_train(f"v1;d_model=32;n_heads=4;n_layers=1;d_ff=64;max_len=16;text={text}")
    assert host_configs("床前明月光，疑是地上霜", gpt, training)  # a comma, a space-free poem: accepted
