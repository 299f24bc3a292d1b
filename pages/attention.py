"""Attention page: the steps of attention in one layer and head with the real numbers, and what-if switches."""

import math
from collections.abc import Callable

import streamlit as st

from tinygpt.attention import STEP_IDS, STEPS, Switches, first_affected_step, future_mask, step_by_id
from tinygpt.charts import position_labels
from tinygpt.generate import crop_context
from tinygpt.ui import attention_view as view
from tinygpt.ui import experiments_view
from tinygpt.ui.common import model_banner, restore_widget_values, show_error
from tinygpt.ui.i18n import tr
from tinygpt.ui.lesson import control
from tinygpt.ui.models import attention_trace
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.vocab import UnknownCharError

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

st.title(tr("attn.title"))
st.markdown(tr("attn.intro"))
tm = model_banner(choose="attn")  # with the model choice (textbook / context / own)
view.follow_model(tm)  # the switches it was trained with; a new model's own text
cfg = tm.gpt_cfg
restore_widget_values({view.K_PART: view.first_part()})  # the open part, across page switches
for message in view.load_url(cfg.n_layers, cfg.n_heads):
    st.warning(message)
view.set_defaults(tm.text[: cfg.max_len], math.sqrt(cfg.d_head))

# Each control is drawn unless a teacher's lesson link hides it (tinygpt.ui.lesson); a hidden one
# keeps its session value, which load_url set from the link's own parameters.
ss = st.session_state
text_in = control(
    view.K_TEXT,
    lambda: st.text_input(tr("attn.text"), help=tr("attn.text_help", max_len=cfg.max_len), key=view.K_TEXT),
    ss[view.K_TEXT],
)
c2, c3 = st.columns([cfg.n_layers + 2, cfg.n_heads + 2])  # one click per layer and head: a button each
layer = control(
    view.K_LAYER,
    lambda: c2.segmented_control(tr("attn.layer"), range(cfg.n_layers), key=view.K_LAYER, required=True),
    ss[view.K_LAYER],
)
head = control(
    view.K_HEAD,
    lambda: c3.segmented_control(tr("attn.head"), range(cfg.n_heads), key=view.K_HEAD, required=True),
    ss[view.K_HEAD],
)

step_labels = {view.INPUT: tr("attn.input_nav")} | {s.id: f"{s.number}. {tr(f'step.{s.id}.name')}" for s in STEPS}
guess = control(view.K_GUESS, lambda: st.toggle(tr("attn.guess"), help=tr("attn.guess_help"), key=view.K_GUESS), False)

text, cropped = crop_context(text_in, cfg.max_len)
base, unknown = None, None
if text:
    try:
        base = attention_trace(tm, text, layer)
    except UnknownCharError as exc:
        unknown = exc
labels = position_labels(text)
causal = future_mask(len(text))  # (T, T)


@st.fragment
def what_if_part() -> None:
    """The switches, the part chooser and the one part drawn (:data:`view.PARTS`: the steps, the
    prediction at every position, heads and layers, training). A fragment: a switch (τ, the mask,
    the scaling, a score edit, …) or another part reruns this only, not the page's model choice,
    text and layer widgets."""
    mask_on, scaling, divisor, temperature, heads_off, uniform = view.switch_panel(cfg, layer, head)
    if base is not None:
        edits = view.score_editor(base, layer, head, labels)
    else:  # nothing to edit in a text the model cannot read: the editor keeps its state for the next text
        view.keep_values((view.K_EDITING,))
        edits = ()
    part = view.part_chooser()

    def url_for(step: str) -> dict[str, str]:
        """The query parameters of this view showing ``step``."""
        return view.url_values(
            text_in,
            layer,
            head,
            step,
            mask_on,
            scaling,
            st.session_state.get(view.K_DIVISOR, 1.0),
            temperature,
            heads_off,
            uniform,
            guess,
            part,
        )

    view.write_url(url_for(st.session_state.get(view.K_STEP, STEP_IDS[0])))
    if part == "training":  # the snapshots are α of the training text, whatever text is typed above
        view.show_snapshots(tm, layer, head)
        return
    if not text_in:
        st.warning(tr("err.empty_text"))
        return
    if cropped:
        st.info(tr("attn.cropped", n=len(text_in), max_len=cfg.max_len))
    if len(text) > tm.window:
        st.info(tr("attn.beyond_window", n=len(text), window=tm.window, last=len(text) - 1))
    if base is None:
        show_error(unknown)
        return

    switches = Switches(
        causal_mask=mask_on,
        divisor=divisor,
        temperature=temperature,
        edits=edits,
        uniform_heads=view.uniform_heads(uniform, head, cfg.n_heads),
        heads_off=tuple(sorted(heads_off)),
    )
    if part == "steps":
        steps_part(switches, url_for)
    elif part == "prediction":
        st.subheader(tr("attn.pred_header"))
        view.show_prediction(tm, text, layer, switches)
        experiments_view.show_effects(tm, text, layer, switches, labels)
        if not guess:  # with the guess on, the α grids would give the answers away
            trace = view.what_if(base, switches)
            view.show_alpha_grid(
                trace.state["alpha"][0],
                [tr("attn.panel_head", h=h) for h in range(cfg.n_heads)],
                labels,
                causal if mask_on else None,
                header=tr("attn.heads_header", layer=layer),
                key=view.K_HEADS_GRID,
            )
    elif part == "model":
        experiments_view.show_model_experiments(tm, text, labels)
        if not guess:
            view.show_alpha_grid(
                view.cached_walk(tm, text).alphas[:, head],
                [tr("attn.panel_layer", l=k) for k in range(cfg.n_layers)],
                labels,
                causal,
                header=tr("attn.layers_header", head=head),
                key=view.K_LAYERS_GRID,
                caption=tr("attn.layers_caption"),
            )


def steps_part(switches: Switches, url_for: Callable[[str], dict[str, str]]) -> None:
    """The step navigation and the chosen step, its checks, and a line counting the predictions
    the switches change (with a button to the prediction part)."""
    trace = view.what_if(base, switches)
    future = causal if switches.causal_mask else None

    @st.fragment
    def step_part() -> None:
        """The step navigation and the chosen step. A fragment: a move to another step (and the
        step's own controls) reruns only this part."""
        chosen = view.step_nav(step_labels)  # view.INPUT or a step id
        view.write_url(url_for(chosen))
        if not switches.is_default:
            st.caption(tr("attn.whatif_note", step=first_affected_step(base.switches, switches) + 1))
        if chosen == view.INPUT:
            view.show_input(trace, labels, cfg)
            revealed = True
        else:
            step = step_by_id(chosen)
            # With the guess on, the step's question comes before its numbers; until it is answered the
            # numbers, the checks and the α charts (which give the answer away) are not drawn.
            exercise = (lambda: view.guess_step(tm, text, trace, step, head)) if guess else None
            revealed = view.show_step(trace, step, head, labels, cfg, future, exercise)

        if revealed:  # the checks say every row of α sums to 1: after the guess
            with st.container(border=True):
                view.show_checks(tm, text, base, trace, head)

    step_part()
    fx = view.whatif_effects(tm, text, layer, switches)
    view.effects_note(fx.n_changed, len(text), layer, switches.is_default)


what_if_part()
