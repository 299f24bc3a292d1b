"""Attention page: flip a switch and see which predictions change and why, then every number of
the nine steps of attention in one layer and head."""

import streamlit as st

from tinygpt.attention import future_mask
from tinygpt.explanations.charts import position_labels
from tinygpt.formatting import number
from tinygpt.generate import crop_context
from tinygpt.ui.attention import effect, sections, steps, switches
from tinygpt.ui.attention import state as s
from tinygpt.ui.choice import model_banner, model_choice
from tinygpt.ui.classwork import concept_check_view
from tinygpt.ui.frame import url
from tinygpt.ui.frame.help import help_toggle
from tinygpt.ui.frame.language import tr
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.shared.attention_data import what_if
from tinygpt.ui.shared.common import show_error, show_job_notice
from tinygpt.ui.shared.models import attention_trace
from tinygpt.ui.views.lesson import control, visible, who_flips
from tinygpt.vocab import UnknownCharError

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

st.title(tr("attn.title"))
INTRO = {"student": "attn.intro", "teacher": "attn.intro_teacher", "lesson": "attn.intro_lesson"}
st.markdown(tr(INTRO[who_flips()]))  # never asks for a switch the page does not draw
choice_box, text_box = st.columns([3, 2], vertical_alignment="bottom")
with choice_box:
    record, choice = model_choice.choose_model()
s.follow_model(record)  # a new model: its own attention, and its own text unless it can read the one kept
cfg = record.gpt_cfg
messages = url.load(s.PAGE, s.url_params(cfg, record.vocab.chars))  # a link's view on top
text_in = control(
    s.K_TEXT,
    lambda: text_box.text_input(
        tr("attn.text"), help=tr("attn.text_help", max_len=cfg.max_len), key=s.K_TEXT, persist_state="session"
    ),
    None,
)
model_banner.banner(record, choice)
show_job_notice()
text, cropped = crop_context(text_in, cfg.max_len)
messages += s.clamp(cfg, text)
url.warn(messages)  # one box, in the URL's order
if cropped:
    st.info(tr("attn.cropped", n=len(text_in), max_len=cfg.max_len))
if len(text) > record.window:
    st.info(tr("attn.beyond_window", n=len(text), window=record.window, last=len(text) - 1))


@st.fragment
def what_if_part() -> None:
    """The switches with their effect right under them, then the steps and the whole model. A
    fragment: a switch reruns this only, not the model choice and the text above."""
    ss = st.session_state
    layer = ss[s.K_LAYER]
    base, problem = None, None
    if not text:
        problem = tr("err.empty_text")
    else:
        try:
            base = attention_trace(record, text, layer, s.other_layers(cfg))
        except UnknownCharError as exc:
            problem = exc
    labels = position_labels(text)
    with st.container(border=True, key="attn_whatif"):
        switches.primary(record)
        switches.more(cfg, base, labels)  # above the effect: what appears under it never moves a control
        sw = s.switches(cfg, len(text))
        fx = None
        if base is not None:
            fx = effect.panel(record, text, layer, sw, s.other_layers(cfg))
        elif isinstance(problem, Exception):
            show_error(problem)
        else:
            st.warning(problem)
    url.save(s.PAGE, s.url_params(cfg))
    if base is None:
        return
    sections.jump_link()  # which heads matter and the logit lens, far down a phone's page
    concept_check_view.section(record, text)  # five questions before the lesson and after it
    effect.details(record, text, layer, sw, fx)
    st.subheader(tr("attn.steps_header", layer=number(layer), head=number(ss[s.K_HEAD])))
    if any(visible(k) for k in (s.K_LAYER, s.K_HEAD)):  # a lesson may hide the layer and head
        st.caption(tr("attn.steps_caption"))
    if layer > 0 and s.other_layers(cfg) is not None:  # the earlier layers' switches reach this layer's X
        before = "1" if layer == 1 else f"1–{layer}"
        st.caption(tr("attn.steps_all_layers", layer=number(layer), before=before))
    control(
        s.K_GUESS,
        lambda: help_toggle(tr("attn.guess"), tr("attn.guess_help"), key=s.K_GUESS, persist_state="session"),
        None,
    )
    causal = future_mask(len(text))  # (T, T)
    steps.steps_section(record, text, base, sw, labels, causal)
    heads_alpha = None if ss[s.K_GUESS] else what_if(base, sw).state["alpha"][0]  # (h, T, T)
    sections.whole_model(record, text, labels, heads_alpha, causal, sw.causal_mask)


what_if_part()
