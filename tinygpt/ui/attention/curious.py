""" "For the curious" under a step: the checks that the numbers on screen are the model's own and
the code that computed the step (``inspect.getsource``: the code shown is the code that ran).

Shapes: T sequence length.
"""

from __future__ import annotations

import streamlit as st

from tinygpt.attention import AttentionTrace, Step
from tinygpt.explanations.explain import (
    masked_weights,
    non_finite,
    row_sums,
    sdpa_switch_difference,
    step_source_location,
)
from tinygpt.formatting import number
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import state as s
from tinygpt.ui.frame.language import tr
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.views.lesson import visible


def for_the_curious(
    record: ModelRecord, text: str, base: AttentionTrace, trace: AttentionTrace, head: int, step: Step | None
) -> None:
    """ "For the curious": an expander drawn only while open, with the checks that the numbers on
    screen are the model's own (rows of α sum to 1, masked entries exactly 0, the attention
    module's output, PyTorch's scaled_dot_product_attention) and the code that computed the step."""
    box = st.expander(tr("attn.curious"), key=s.K_CURIOUS, on_change="rerun", icon=":material/science:")
    if not box.open:
        return
    with box:
        show_checks(record, text, base, trace, head)
        if step is not None and visible(s.K_SOURCE):
            path, first, last = step_source_location(step)
            st.markdown(f"**{tr('attn.source', path=path, first=first, last=last)}**")
            st.caption(tr("attn.source_indices", layer=number(trace.layer), head=number(head), l=trace.layer, h=head))
            st.code(step.source(), language="python")


def show_checks(record: ModelRecord, text: str, base: AttentionTrace, trace: AttentionTrace, head: int) -> None:
    """The on-screen checks: row sums, exact zeros under the mask, the model's own output, SDPA, NaN."""
    st.markdown(f"**{tr('attn.checks')}**")
    ok, warn = ":material/check_circle:", ":material/warning:"
    sums = row_sums(trace)[0, head]  # (T,)
    dev = float((sums.double() - 1).abs().max())
    lines = [f"{ok if dev < 1e-5 else warn} " + tr("attn.check_rows", n=sums.numel(), dev=dev, head=number(head))]
    n_masked, worst = masked_weights(trace)
    if trace.switches.causal_mask:
        value = tr("attn.check_masked_value") if worst == 0.0 else f"{worst:.3g}"
        lines.append(f"{ok if worst == 0.0 else warn} " + tr("attn.check_masked", n=n_masked, value=value))
    else:
        lines.append(f"{ok} " + tr("attn.check_no_mask"))
    diff = data.own_module_difference(record, text, base.layer)
    lines.append(f"{ok if diff < 1e-6 else warn} " + tr("attn.check_module", diff=diff))
    if trace.switches != base.switches:
        change = float((trace.state["out"] - base.state["out"]).abs().max())
        lines.append(":material/info: " + tr("attn.check_changed", diff=change))
    sdpa = sdpa_switch_difference(trace)
    sw = trace.switches
    if sdpa is None:
        lines.append(":material/info: " + tr("attn.check_sdpa_edits" if sw.edits else "attn.check_sdpa_uniform"))
    else:
        scale = 1.0 / (sw.divisor_for(trace.state["Q_h"].shape[-1]) * sw.temperature)
        lines.append(
            f"{ok if sdpa < 1e-4 else warn} " + tr("attn.check_sdpa", causal=sw.causal_mask, scale=scale, diff=sdpa)
        )
    bad = non_finite(trace)
    lines.append(
        f"{warn} " + tr("attn.check_not_finite", names=", ".join(bad)) if bad else f"{ok} " + tr("attn.check_finite")
    )
    st.markdown("  \n".join(lines))
