"""Predict page: the next-character distribution at every position, then generation one step at a time."""

import streamlit as st

from tinygpt.explanations.exercises import next_char_question
from tinygpt.formatting import format_probability
from tinygpt.generate import crop_context, training_targets
from tinygpt.ui.choice import model_banner, model_choice
from tinygpt.ui.classwork import concept_check_view, exercise_view
from tinygpt.ui.frame import url
from tinygpt.ui.frame.figure_view import bars_text, chart_data, figure_spec
from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.predict import predict_view as view
from tinygpt.ui.predict import predict_wait
from tinygpt.ui.predict.predict_generation import generation, md, position_panels, readable, restart_steps, short
from tinygpt.ui.predict.predict_view import cached_probs
from tinygpt.ui.shared.common import show_error, show_job_notice
from tinygpt.ui.views.lesson import control, led_live, page_shown, visible, who_flips
from tinygpt.ui.views.predict_table import P_GUESS, P_PREFIX, PAGE, url_params
from tinygpt.vocab import UnknownCharError

POSITIONS_KEY = "predict_positions"  # the expander of every position's distribution

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

st.title(tr("predict.title"))
st.markdown(tr("predict.intro" if visible(P_PREFIX) else "predict.intro_set"))  # no "type a prefix" without its box
record, choice = model_choice.choose_model(wait=False)
# An example's model still loading (a fresh server): the controls are drawn from the example's text and
# vocabulary, and the predictions follow when the model is ready (tinygpt.ui.predict.predict_wait).
loading, banner_box = record is None, st.empty()
with banner_box:
    if loading:
        record = predict_wait.sketch(choice)
        predict_wait.loading_banner(choice)
    else:
        model_banner.banner(record, choice)
show_job_notice()
chars, max_len, window = record.vocab.chars, record.gpt_cfg.max_len, record.window
V, known = len(chars), " ".join(md(readable(c)) for c in chars)
view.follow_model(record, choice)  # another model: its own text unless it can read the prefix kept
url.warn(url.load(PAGE, url_params()))  # a link's view on top; its refused values in one box
# Each control is drawn unless a teacher's lesson link hides it (tinygpt.ui.views.lesson); a hidden one keeps its value.
c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
prefix = control(
    P_PREFIX,
    lambda: c1.text_input(
        tr("predict.prefix"),
        help=tr("predict.prefix_help", known=known),
        key=P_PREFIX,
        on_change=restart_steps,
        persist_state="session",
    ),
    None,
)
if not visible(P_PREFIX):  # the lesson or the teacher set it: say what it is, where its box would be
    said = "predict.prefix_set_teacher" if led_live() else "predict.prefix_set_lesson"
    c1.markdown(tr(said, prefix=md(prefix, True)))
guess = control(
    P_GUESS,
    lambda: c2.toggle(
        tr("predict.guess"),
        help=tr("predict.guess_help"),
        key=P_GUESS,
        persist_state="session",
    ),
    None,
)
url.save(PAGE, url_params())
if page_shown("attention"):  # the next step of the start box's path, in view before the numbers
    with st.container(key="predict_next_step"):
        nexts = {
            "student": "predict.next_step",
            "teacher": "predict.next_step_teacher",
            "lesson": "predict.next_step_lesson",
        }
        st.page_link("pages/attention.py", label=tr(nexts[who_flips()]), icon=":material/arrow_forward:")

if not prefix:
    st.warning(tr("predict.empty", known=known))
    st.stop()
if not prefix.strip():
    st.warning(tr("predict.blank", known=known))
    st.stop()
unknown = record.vocab.unknown(prefix)
if unknown:
    st.error(tr("err.unknown_chars", unknown=" ".join(md(readable(c)) for c in unknown), known=known))
    st.stop()
shown, cropped = crop_context(prefix, max_len)
if cropped:
    st.info(tr("predict.too_long", n=len(prefix), max_len=max_len))
if loading:  # the predictions' place: "the model is loading" until it is ready
    record = predict_wait.wait_for_model(choice)
    if record is None:  # not ready within predict_wait.WAIT_IN_RUN_S: the page reruns when it is
        st.stop()
    with banner_box:
        model_banner.banner(record, choice)
    view.follow_model(record, choice)
try:
    probs = cached_probs(record, shown)  # (T, V)
except (UnknownCharError, ValueError) as exc:
    show_error(exc)
    st.stop()

axis_titles = (tr("predict.axis_char"), tr("predict.axis_prob"))
# ---- guess, then reveal: the student picks the next character before any distribution is shown ----
if guess:
    question = next_char_question(probs[-1], chars, shown)  # (V,): after the whole (cropped) prefix
    st.subheader(tr("ex.header"))
    if not exercise_view.ask(question, "predict_quiz"):
        st.stop()  # no score yet: it comes with the answer (one before the guess would count other pages' answers)
    reveal_title, axis_char, axis_prob = tr("predict.reveal_title", context=short(shown, 12)), *axis_titles
    st.vega_lite_chart(
        figure_spec(
            "probability_bars",
            probs[-1],
            chars,
            title=reveal_title,
            highlight=question.answer_choices[0].id,
            x_title=axis_char,
            y_title=axis_prob,
            description=bars_text(reveal_title, V, axis_char, axis_prob, (("◆", tr("predict.reveal_mark")),)),
        ),
        width="content",
    )
    if (box := chart_data("predict_reveal_data")) is not None:
        box_table = {axis_char: [readable(c) for c in chars], axis_prob: probs[-1].tolist()}
        with box:
            show_table(text_table(box_table, {axis_prob: format_probability}), hide_index=True)
    exercise_view.show_score()

# ---- the next-character distribution at every position of the prefix: a table of numbers and a
# chart per position, drawn only while the student has this part open (closed, nothing is sent) ----
positions = st.expander(tr("predict.per_position_open"), key=POSITIONS_KEY, on_change="rerun", icon=":material/table:")
if positions.open:
    with positions:
        targets = training_targets(record.text, window, shown)
        st.caption(
            tr(
                "predict.per_position_note",
                text=md(short(record.text, 12)),
                shifted=md(short(record.text[1:] + record.text[:1], 12)),
            )
        )
        T = len(shown)
        top = [chars[int(i)] for i in probs.argmax(-1)]
        # The key columns come first; one probability column per character follows. A large table (a
        # large vocabulary) is a grid whose key columns stay pinned while the probabilities scroll.
        col_pos, col_context, col_top, col_expected, col_match = (
            tr(f"predict.col_{name}") for name in ("pos", "context", "top", "expected", "match")
        )
        table = {
            col_pos: list(range(T)),
            col_context: [shown[: i + 1] for i in range(T)],
            col_top: [readable(c) for c in top],  # a space named, not an empty-looking cell
            col_expected: [" / ".join(map(readable, t)) if t else tr("predict.no_target") for t in targets],
            col_match: ["" if not t else ("✓" if top[i] in t else "✗") for i, t in enumerate(targets)],
        }
        p_columns = [f"p({c})" for c in chars]
        for name, column in zip(p_columns, probs.T.tolist()):
            table[name] = column
        key_columns = {
            col_pos: st.column_config.NumberColumn(width=40, pinned=True),
            col_context: st.column_config.TextColumn(width=90, pinned=True),
            col_top: st.column_config.TextColumn(width=64, pinned=True, help=tr("predict.col_top_help")),
            col_expected: st.column_config.TextColumn(width=64, pinned=True, help=tr("predict.col_expected_help")),
            col_match: st.column_config.TextColumn(width=48, pinned=True, help=tr("predict.col_match_help")),
        }
        if show_table(
            text_table(table, dict.fromkeys(p_columns, format_probability)),
            hide_index=True,
            column_config=key_columns,
            key="predict_positions_table",
        ):
            st.caption(
                " · ".join(
                    f"**{name}** {tr(f'predict.col_{part}_help')}"
                    for name, part in ((col_top, "top"), (col_expected, "expected"), (col_match, "match"))
                )
            )
        position_panels(record, shown, probs, targets)

# ---- autoregressive generation, one step at a time ----
generation(record, prefix)
concept_check_view.section(record)  # five questions before the lesson and after it, on this page too
