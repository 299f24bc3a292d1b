"""A teacher's lesson link (tinygpt.ui.views.lesson) and Predict's guess-then-reveal mode
(tinygpt.ui.classwork.exercise_view)."""

from __future__ import annotations

import pytest
from helpers import tables
from streamlit.testing.v1 import AppTest

from tinygpt.explanations.theory import STEP_CONCEPT
from tinygpt.i18n import t
from tinygpt.ui.views.attention_table import K_GUESS, K_HEADS, K_TABLE, K_TRAINING
from tinygpt.ui.views.lesson import LESSON_CONTROLS, parse_lesson
from tinygpt.ui.views.predict_table import P_GUESS, P_PREFIX

PAGE_NAMES = ("train", "predict", "attention", "theory")


def open_app(lang: str = "en", page: str | None = None, **params: str) -> AppTest:
    """Run the app with ?lang= and the given lesson parameters (then switch to ``page``)."""
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    params.setdefault("model", "textbook")  # the pages open on the context example; these tests read the textbook's
    at.query_params.update({"lang": lang, **params})
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def listed_pages(at: AppTest, lang: str = "en") -> set[str]:
    """The pages a lesson's sidebar lists (links titled as the pages), checked against the pages
    registered with st.navigation: those, the lesson's start page at the root URL and the paths of
    the pages it leaves out."""
    titles = {t(f"nav.{name}", lang): name for name in PAGE_NAMES}
    linked = [titles[link.value] for link in at.sidebar.get("page_link")]
    assert len(linked) == len(set(linked))
    registered = at._registered_pages.values()
    assert {info["url_pathname"] for info in registered if info["script_path"]} == set(linked)
    # without a file: the lesson's start (the root) and the other pages' paths, which say the lesson leaves them out
    assert {info["url_pathname"] for info in registered if not info["script_path"]} == {""} | (
        set(PAGE_NAMES) - set(linked)
    )
    return set(linked)


def keyed_widgets(at: AppTest) -> set[str]:
    """Keys of the widgets drawn in the main area (the sidebar holds only the language switch);
    download buttons are left out: they save what is shown and change nothing."""
    kinds = (
        "text_input",
        "slider",
        "select_slider",
        "toggle",
        "radio",
        "selectbox",
        "multiselect",
        "number_input",
        "text_area",
        "button_group",
        "button",
        "expander",
    )
    return {w.key for kind in kinds for w in at.main.get(kind) if getattr(w, "key", None)}


# ---------------------------------------------------------------- parsing the link


def test_parse_keeps_known_names_in_app_order_and_reports_the_others():
    lesson = parse_lesson(
        {"lesson": "1", "pages": "Theory, predict,,bogus", "show": "predict_prefix,nope", "hide": "theory_tau"},
        PAGE_NAMES,
    )
    assert lesson.pages == ("predict", "theory") and lesson.bad_pages == ("bogus",)
    assert lesson.show == {"predict_prefix"} and lesson.hide == {"theory_tau"} and lesson.bad_controls == ("nope",)
    assert lesson.visible("predict_prefix") and not lesson.visible("predict_seed") and not lesson.visible("theory_tau")
    assert lesson.page_shown("theory") and not lesson.page_shown("train")
    assert dict(lesson.params) == {
        "lesson": "1",
        "pages": "theory,predict,bogus",
        "show": "predict_prefix,nope",
        "hide": "theory_tau",
    }


def test_parse_without_lesson_parameters_is_the_full_app():
    assert parse_lesson({"lang": "en", "text": "你好"}, PAGE_NAMES) is None
    assert parse_lesson({"lesson": "0"}, PAGE_NAMES) is None
    only_hide = parse_lesson({"hide": "predict_seed"}, PAGE_NAMES)  # any lesson parameter makes a lesson
    assert only_hide.pages == () and only_hide.page_shown("train") and not only_hide.visible("predict_seed")
    assert only_hide.visible("attn_mask")


def test_the_registry_names_every_attention_control_and_real_labels():
    from tinygpt.i18n import CATALOGUE

    for key in (
        "attn_text",
        "attn_layer",
        "attn_head",
        "attn_step",
        "attn_mask",
        "attn_scaling",
        "attn_divisor",
        "attn_temperature",
    ):
        assert key in LESSON_CONTROLS
    assert all(label in CATALOGUE for label, _ in LESSON_CONTROLS.values())
    assert all(key.split("_")[0] in ("train", "predict", "attn", "theory", "model") for key in LESSON_CONTROLS)


# ---------------------------------------------------------------- the locked app


def test_a_locked_link_lists_only_its_pages_and_draws_only_its_controls_on_predict_and_theory():
    at = open_app(lesson="1", pages="predict,theory", show="predict_prefix,predict_temperature,theory_tau,theory_mask")
    assert listed_pages(at) == {"predict", "theory"}
    assert at.title[0].value == t("predict.title", "en")  # the root URL opens the lesson's first page
    assert keyed_widgets(at) - PREDICT_NAVIGATION == {"predict_prefix", "predict_temperature"}
    assert at.info[0].value.startswith("**Lesson view:**") and "](?lang=en)" in at.info[0].value
    assert not at.warning and not at.main.get("page_link")  # no link to the Attention page, which the lesson leaves out
    assert tables(at)[0].value.shape[0] == 4  # hidden controls keep their defaults: the step's table, 4 characters
    assert any("你好世界 **你好世界**" in m.value for m in at.markdown)  # greedy, N = 4
    with pytest.raises(ValueError):
        at.switch_page("pages/train.py")
    at.switch_page("pages/theory.py").run()
    assert not at.exception
    # the page opens the section holding the lesson's controls; its section chooser and "next"
    # button are navigation, like the page list, not lesson controls
    assert at.button_group(key="theory_section").value == "attention"
    assert keyed_widgets(at) == {"theory_tau", "theory_mask", "theory_section", "theory_next_attention"}
    assert at.info[0].value.startswith("**Lesson view:**")
    assert {k: at.query_params[k] for k in ("lesson", "pages")} == {"lesson": "1", "pages": "predict,theory"}


def test_hide_leaves_the_other_controls_and_the_lesson_survives_the_language_switch():
    at = open_app(page="pages/predict.py", hide="predict_seed,predict_top_k,predict_guess")
    drawn = keyed_widgets(at)
    assert {"predict_prefix", "predict_n_new", "predict_strategy", "predict_temperature"} <= drawn
    assert not drawn & {"predict_seed", "predict_top_k", "predict_guess"}
    assert listed_pages(at) == set(PAGE_NAMES)
    at.sidebar.radio(key="_lang_radio").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == t("predict.title", "zh") and at.info[0].value.startswith("**课堂视图**：")
    assert not keyed_widgets(at) & {"predict_seed", "predict_top_k", "predict_guess"}
    assert at.query_params["hide"] == "predict_seed,predict_top_k,predict_guess" and at.query_params["lang"] == "zh"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bad_names_in_the_link_are_named_with_the_accepted_ones_in_the_users_language(lang):
    at = open_app(lang, lesson="1", pages="predict,games", show="predict_prefix,predict_volume")
    pages_msg, controls_msg = (w.value for w in at.warning)
    assert pages_msg == t("lesson.bad_pages", lang, names="games", accepted="train, predict, attention, theory")
    assert controls_msg == t("lesson.bad_controls", lang, names="predict\\_volume")
    assert "predict_prefix" not in controls_msg  # widget keys: behind the help icon, for the teacher
    (accepted,) = [c for c in at.caption if c.value == t("lesson.accepted_controls", lang)]
    assert "predict: predict\\_prefix, predict\\_guess" in accepted.help  # the accepted names, page by page
    assert listed_pages(at, lang) == {"predict"} and keyed_widgets(at) - PREDICT_NAVIGATION == {"predict_prefix"}


def test_a_link_naming_no_existing_page_lists_every_page():
    at = open_app(pages="games")
    assert listed_pages(at) == set(PAGE_NAMES) and len(at.warning) == 1


def test_without_a_lesson_there_is_no_note_and_every_control_is_drawn():
    at = open_app(page="pages/predict.py")
    assert not at.info or not at.info[0].value.startswith("**Lesson view:**")
    assert {
        "predict_prefix",
        "predict_n_new",
        "predict_guess",
        "predict_strategy",
        "predict_temperature",
        "predict_top_k",
        "predict_seed",
    } <= keyed_widgets(at)


# ---------------------------------------------------------------- guess, then reveal on Predict


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_predict_guess_reveals_after_a_pick_and_keeps_the_score(lang):
    at = open_app(lang, page="pages/predict.py")
    at.toggle(key=P_GUESS).set_value(True).run()
    pick = at.button_group(key="predict_quiz_pick")
    assert pick.label == t("ex.next_char.prompt", lang, context="你好世界") and pick.options == list("你好世界")
    assert not tables(at) and not at.get("vega_lite_chart")  # nothing revealed before the guess
    score_start = t("ex.score_none", lang).split("：")[0].split(":")[0]  # "Your score this session"
    assert not [c.value for c in at.main.caption if c.value.startswith(score_start)]  # no score before the guess

    at.button_group(key="predict_quiz_pick").set_value("你").run()  # the model's argmax after 你好世界
    assert not at.exception
    reason = at.success[0].value
    assert reason.startswith(t("ex.right", lang, reason="")) and "p(你 | 你好世界) = 0.999" in reason
    assert t("ex.score", lang, right=1, asked=1) in [c.value for c in at.caption]
    assert tables(at) and at.get("vega_lite_chart")  # the distributions are shown now
    assert at.button_group(key="predict_quiz_pick").disabled  # one guess per question

    at.text_input(key=P_PREFIX).set_value("你好").run()  # a new question: unanswered again
    assert not at.button_group(key="predict_quiz_pick").value and not tables(at)
    at.button_group(key="predict_quiz_pick").set_value("界").run()
    assert at.error[0].value.startswith(t("ex.wrong", lang, answer=t("ex.quoted", lang, text="世"), reason=""))
    assert t("ex.score", lang, right=1, asked=2) in [c.value for c in at.caption]


# ---------------------------------------------------------------- the Attention page's exercise, ready to wire


def _attention_exercise_script(step: str, query: int) -> None:
    import sys

    sys.path.insert(0, "tests")
    from helpers import seed_model

    from tinygpt.explanations.explain import trace_of
    from tinygpt.ui.classwork.exercise_view import attention_exercise

    record = seed_model()
    idx = record.vocab.encode("你好世界")[None]
    trace = trace_of(record.model, idx, 0)
    trace.tokens = list("你好世界")
    import streamlit as st

    if attention_exercise(trace, step, head=0, layer=0, query=query, model=record.model, idx=idx):
        st.markdown("REVEALED")


def test_attention_exercise_asks_the_steps_questions_and_reveals_each():
    at = AppTest.from_function(_attention_exercise_script, args=("mask", 2), default_timeout=180)
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception
    masked, argmax = at.button_group
    assert masked.key == "attn_ex_masked_cells_pick" and argmax.key == "attn_ex_argmax_key_pick"
    assert masked.label == t("ex.masked_cells.prompt", "en", i=2, token="世")
    assert masked.options == ["0 你", "1 好", "2 世", "3 界", t("ex.none", "en")]
    assert argmax.options == ["0 你", "1 好", "2 世"]
    at.button_group(key="attn_ex_argmax_key_pick").set_value("1").run()  # α[2, 1] = 0.714 is the largest
    assert at.success[0].value == t("ex.right", "en", reason=t("ex.argmax_key.reason", "en", i=2, j=1, value=0.71446))
    assert not any(m.value == "REVEALED" for m in at.markdown)  # the mask question is still open
    at.button_group(key="attn_ex_masked_cells_pick").set_value(["3"]).run()
    at.button(key="attn_ex_masked_cells_check").click().run()
    assert len(at.success) == 2 and any(m.value == "REVEALED" for m in at.markdown)
    assert t("ex.score", "en", right=2, asked=2) in [c.value for c in at.caption]


def test_attention_exercise_draws_nothing_for_a_step_without_questions():
    at = AppTest.from_function(_attention_exercise_script, args=("projection", 2), default_timeout=180)
    at.run()
    assert not at.exception and not at.button_group and any(m.value == "REVEALED" for m in at.markdown)


# ---------------------------------------------------------------- the Attention page, locked

#: Expanders of the Predict page drawn only while open (every position's distribution, all the
#: generation's steps, the context length's slider): navigation, like the page list, not lesson controls.
PREDICT_NAVIGATION = {"predict_positions", "predict_all_steps", "predict_context_box"}

#: Keyed widgets the Attention page draws that are parts of a registered control: the step's
#: Previous/Next buttons (``attn_step``), the context example's button (``model_choice``), the
#: expanders of the training snapshots (``attn_snapshot``).
PARTS_OF_CONTROLS = {"attn_prev", "attn_next", "attn_try_context", "attn_training"}
#: Expanders that hold controls, checks or a chart's data as a table: navigation, like the page
#: list, not lesson controls.
ATTN_NAVIGATION = {
    "attn_curious",
    "attn_more",
    "attn_table_open",
    "attn_heads_grid_data",
    "attn_layers_grid_data",
    "attn_snapshot_data",
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_locked_attention_link_draws_only_its_switches_and_keeps_the_links_view(lang):
    at = open_app(
        lang, lesson="1", pages="attention", show="attn_mask,attn_temperature", step="softmax", mask="0", tau="0.5"
    )
    assert listed_pages(at, lang) == {"attention"} and at.title[0].value == t("attn.title", lang)
    assert keyed_widgets(at) == {"attn_mask", "attn_temperature", "attn_curious", "attn_table_open"}
    keyed = [e.key for e in at.expander if e.key]
    assert keyed == ["attn_table_open", "attn_curious"]  # more controls, the heads and lens sections: hidden
    assert not at.main.get("page_link")  # no link to the Theory page, which the lesson leaves out
    assert at.toggle(key="attn_mask").value is False and at.select_slider(key="attn_temperature").value == 0.5
    step = t("attn.step_header", lang, number=6, n=9, name=t("step.softmax.name", lang))
    assert step in [s.value for s in at.subheader]  # the hidden step control keeps the link's step=softmax
    assert not tables(at)  # the step's table is one click away
    at.session_state[K_TABLE] = True
    at.run()
    alpha = tables(at)[0].value.to_numpy()
    assert alpha.shape == (4, 4) and (alpha[0, 1:] > 0).all()  # mask off, from the link
    assert {k: at.query_params[k] for k in ("step", "mask", "tau", "lesson", "show")} == {
        "step": "softmax",
        "mask": "0",
        "tau": "0.5",
        "lesson": "1",
        "show": "attn_mask,attn_temperature",
    }


def test_every_widget_of_the_attention_page_is_a_lesson_control_and_a_lesson_with_theory_links_to_it():
    at = open_app(lesson="1", pages="attention,theory", step="projection")  # a lesson that hides nothing
    drawn = keyed_widgets(at)
    links = [link.label for link in at.main.get("page_link")]
    for section in ("attn_more", "attn_details", "attn_heads", "attn_lens", "attn_heads_grid", "attn_layers_grid",
                    "attn_training", "attn_curious"):  # fmt: skip
        at.session_state[section] = True  # open every section: its controls are drawn
    at.session_state["attn_mask"] = False  # a switch changed: "reset" is drawn too
    at.run()
    drawn |= keyed_widgets(at)
    assert {
        "attn_text",
        "attn_step",
        "attn_guess",
        "attn_mask",
        "attn_reset",
        "attn_scaling",
        "attn_temperature",
        "attn_heads_off",
        "attn_uniform",
        "attn_uniform_scope",
        "attn_editing",
        "attn_cell_i",
        "attn_all_columns",
        "attn_heads",
        "attn_lens",
    } <= drawn
    assert drawn - PARTS_OF_CONTROLS - ATTN_NAVIGATION <= set(LESSON_CONTROLS)
    assert links == [t("attn.theory_link", "en", title=t(f"theory.{STEP_CONCEPT['projection']}.title", "en"))]


def test_a_lesson_hiding_every_switch_draws_no_empty_switch_panel():
    at = open_app(lesson="1", pages="attention", show="attn_step", mask="0")
    assert keyed_widgets(at) == {"attn_step", "attn_prev", "attn_next", "attn_curious", "attn_table_open"}
    assert not at.toggle and at.query_params["mask"] == "0"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_lesson_without_a_switch_never_asks_the_student_to_flip_one(lang):
    at = open_app(lang, lesson="1", pages="attention", show="attn_step")  # the model's own switches, none drawn
    texts = [m.value for m in at.markdown]
    assert t("attn.intro_lesson", lang) in texts and t("attn.intro", lang) not in texts
    assert t("attn.effect.own_lesson", lang, T=4, layer=1, L=6) in texts  # the textbook: 你好世界, six layers
    assert t("attn.effect.own", lang, T=4, layer=1, L=6) not in texts
    at = open_app(lang, lesson="1", pages="attention", show="attn_temperature")  # one switch: the student flips it
    texts = [m.value for m in at.markdown]
    assert t("attn.intro", lang) in texts and t("attn.effect.own", lang, T=4, layer=1, L=6) in texts
    at = open_app(lang, "pages/predict.py", lesson="1", pages="predict,attention", show="predict_prefix")
    assert t("predict.next_step_lesson", lang) in {link.proto.label for link in at.main.page_link}
    assert t("predict.next_step", lang) not in {link.proto.label for link in at.main.page_link}
    at = open_app(lang, "pages/train.py", lesson="1", pages="train,attention", show="train_text")
    assert t("train.start_lesson", lang, n=1) in [m.value for m in at.markdown]  # the lesson's pages only
    assert f"② {t('train.path_attention_locked', lang)}" in {link.proto.label for link in at.main.page_link}


def test_a_lesson_showing_only_a_later_parts_controls_opens_that_part():
    at = open_app(lesson="1", pages="attention", show="attn_heads")
    assert at.session_state[K_HEADS] is True and t("attn.exp.heads_caption", "en") in [c.value for c in at.caption]
    assert [e.key for e in at.expander if e.key] == ["attn_table_open", "attn_curious", "attn_heads"]
    at = open_app(lesson="1", pages="attention", show="attn_snapshot")
    assert at.session_state[K_TRAINING] is True
    assert keyed_widgets(at) == {
        "attn_curious",
        "attn_table_open",
        "attn_training",
        "attn_snapshot",
        "attn_snapshot_data",
    }


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_one_link_opens_a_locked_guess_then_reveal_lesson_on_a_chosen_step(lang):
    at = open_app(lang, lesson="1", pages="attention", show="attn_mask", step="softmax", guess="1")
    assert keyed_widgets(at) - {"attn_ex_argmax_key_pick", "attn_ex_row_sum_pick"} == {"attn_mask"}
    assert any(t("step.softmax.name", lang) in h.value for h in at.subheader)  # the link's step
    positions = ["0 你", "1 好", "2 世", "3 界"]
    assert not any(list(d.value.columns) == positions for d in tables(at))  # the numbers wait for the guess
    assert at.button_group(key="attn_ex_argmax_key_pick").label == t("ex.argmax_key.prompt", lang, i=3, token="界")
    assert at.query_params["guess"] == "1"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_bad_guess_value_in_a_link_is_named(lang):
    at = open_app(lang, page="pages/attention.py", guess="maybe")
    assert any(
        w.startswith(t("link.bad_param", lang, name="guess", value="maybe", accepted="")[:20])
        for w in [w.value for w in at.warning]
    )
    assert at.toggle(key=K_GUESS).value is False


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_lesson_that_sets_a_hidden_switch_says_so_where_the_effect_is_counted(lang):
    at = open_app(lang, lesson="1", pages="attention", show="attn_step", model="context", mask="0")
    said = t(
        "attn.lesson_set",
        lang,
        switches=t("attn.lesson_switch", lang, name=t("attn.mask", lang), value=t("attn.lesson_off", lang)),
    )
    texts = [m.value for m in at.markdown]
    assert said in texts  # the student sees no switch, and is told the mask is off

    def said_by(key: str) -> bool:  # a count worded by ``key``, whatever the number changed
        head, tail = t(key, lang, n="@", T=15, layer=1, L=2).split("@")
        return any(m.startswith(head) and m.endswith(tail) for m in texts)

    assert said_by("attn.effect.count_lesson") and not said_by("attn.effect.count")
    at = open_app(lang, lesson="1", pages="attention", show="attn_mask", model="context", mask="0")
    assert said not in [m.value for m in at.markdown]  # the switch is on the page: nothing to say


def test_a_lesson_does_not_offer_students_the_teachers_link_popover():
    def popovers(at: AppTest) -> list:  # "Link for my class" is the sidebar's one popover
        return [b for b in at.sidebar.get("flex_container") if any(c.type == "popover" for c in b.children.values())]

    assert popovers(open_app())  # the full app offers the teacher's tools
    assert not popovers(open_app(lesson="1", pages="attention", show="attn_mask"))


def test_the_builder_names_switched_off_heads_as_people_count_them(monkeypatch):
    from helpers import SMALL

    from tinygpt.config import SEED_TEXT, TrainConfig
    from tinygpt.training.train import train
    from tinygpt.ui.teacher import lesson_builder
    from tinygpt.ui.views import attention_table

    for module in (lesson_builder, attention_table):
        monkeypatch.setattr(module, "tr", lambda key, **f: t(key, "en", **f))
    record = train(SEED_TEXT, SMALL, TrainConfig(epochs=1, early_stop_loss=0.0))
    named = lesson_builder.view_settings({"off": "0,2", "layer": "1"}, record)  # the link's indices
    heads_off = t("attn.heads_off", "en", layer=2)
    assert named == [t("attn.lesson_switch", "en", name=heads_off, value="1, 3")]
    assert lesson_builder.view_settings({"off": "0,2"}, None) == []  # no model: no switch read
