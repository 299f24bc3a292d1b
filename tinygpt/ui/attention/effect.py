"""Right under the switches: what they change in the whole model's prediction at every position, and why.

The panel (a container keyed ``effect_count``) counts the changed predictions ("k of N changed"),
draws every position as a small column — the character, the model's own next character, the one
under the switches and the text's next character — with the changed ones marked (colour, ▲ and
✓/✗, never colour alone), and says why (worded by :mod:`tinygpt.ui.attention.reasons`): for each
changed position where it looked before and after, in the layer and head where its α moved most;
with the mask off, why more context makes it worse; when nothing changes, the reason, with a
button to the context example. The table and chart of every number are one click away (:func:`details`).

Shapes: T sequence length, V vocab_size.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from tinygpt.arrays import to_numpy
from tinygpt.attention import Switches
from tinygpt.examples import EXAMPLES
from tinygpt.explanations.charts import effects_spec
from tinygpt.explanations.explain import PositionEffects
from tinygpt.explanations.why import what_attention_decides
from tinygpt.formatting import format_change, format_probability, number
from tinygpt.training.record import ModelRecord
from tinygpt.ui.attention import predict_marks
from tinygpt.ui.attention import state as s
from tinygpt.ui.attention.reasons import flip_sentence, quoted, role_sentence, steady_sentence
from tinygpt.ui.attention.reasons import shown_char as _char
from tinygpt.ui.frame.controls import K_MODEL, switched
from tinygpt.ui.frame.figure_view import figure_downloads
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.tables import show_table, text_table
from tinygpt.ui.shared import attention_data as data
from tinygpt.ui.shared import context_button
from tinygpt.ui.views.lesson import led_live, visible, who_flips

#: The count while the switches are the model's own, by who flips them (``tinygpt.ui.views.lesson.who_flips``).
OWN_COUNT = {"student": "attn.effect.own", "teacher": "attn.effect.own_teacher", "lesson": "attn.effect.own_lesson"}
#: The symbol beside a position whose predicted character changed (with the colour, never instead of it).
CHANGED_MARK = "▲"
RIGHT_MARK, WRONG_MARK = "✓", "✗"
#: A largest |Δp| below this is called tiny.
TINY_DELTA = 0.01
#: Attention whose rows put on average at least this share on one key counts as (almost) one-hot.
ONE_HOT_SHARE = 0.9
#: Reasons written out under the strip; the rest are behind "all reasons".
SHOWN_FLIPS = 3


def text_next(text: str, record: ModelRecord) -> list[str | None]:
    """The character that follows each position in ``text`` (None after the last)."""
    return [text[i + 1] for i in range(len(text) - 1)] + [None]


def strip_html(text: str, fx: PositionEffects, chars: Sequence[str], targets: Sequence[str | None]) -> str:
    """Every position as a small column: a mark when its prediction changed (✓ or ✗: right or
    wrong against the text; ▲ at the last position, which has no next character), its index, its
    character, the model's own next character,
    the one under the switches and the text's next character."""
    own, new, changed = fx.own_ids.tolist(), fx.new_ids.tolist(), fx.changed.tolist()
    rows = [
        "",
        tr("attn.strip.pos"),
        tr("attn.strip.char"),
        tr("attn.strip.own"),
        tr("attn.strip.new"),
        tr("attn.strip.text"),
    ]
    legend = "".join(f"<span>{html.escape(r) or '&nbsp;'}</span>" for r in rows)
    parts = [f'<div class="col legend" aria-hidden="true">{legend}</div>']
    for i, c in enumerate(text):
        o, n, t = chars[own[i]], chars[new[i]], targets[i]
        mark = ""
        if changed[i]:  # right or wrong against the text; ▲ where the text has no next character
            mark = CHANGED_MARK if t is None else RIGHT_MARK if n == t else WRONG_MARK
        label = tr(
            "attn.strip.aria",
            i=i,
            c=_char(c),
            own=_char(o),
            new=_char(n),
            text=_char(t) if t is not None else "—",
            changed=tr("attn.strip.changed") if changed[i] else tr("attn.strip.same"),
        )
        cells = [mark, str(i), _char(c), _char(o), _char(n), _char(t) if t is not None else "—"]
        spans = "".join(
            f'<span class="{k}">{html.escape(v) or "&nbsp;"}</span>'
            for k, v in zip(("m", "i", "c", "o", "n", "t"), cells)
        )
        css = "col changed" if changed[i] else "col"
        parts.append(f'<div class="{css}" role="listitem" aria-label="{html.escape(label)}">{spans}</div>')
    return (
        f'<div class="tg-strip" role="list" aria-label="{html.escape(tr("attn.strip.label"))}">{"".join(parts)}</div>'
    )


def decides_sentence(record: ModelRecord) -> str:
    """What attention has to decide in the model's training text, or that it has nothing to decide."""
    decided = what_attention_decides(record.text)
    if not decided:
        pairs = ", ".join(f"{_char(a)}→{_char(b)}" for a, b in zip(record.text, record.text[1:] + record.text[:1]))
        return tr("why.decides_none", pairs=md_escape(pairs[:80]))
    best = max(decided, key=lambda d: (bool(d.rule), len(d.nexts)))
    nexts = tr("why.or").join(quoted(c) for c in best.nexts)
    if best.rule:
        rule = ", ".join(f"{_char(p)}{_char(best.char)}→{_char(n)}" for p, n in best.rule)
        return tr("why.decides_rule", c=quoted(best.char), nexts=nexts, rule=md_escape(rule))
    return tr("why.decides_norule", c=quoted(best.char), nexts=nexts)


def unchanged_reasons(record: ModelRecord, text: str, layer: int, sw: Switches, fx: PositionEffects) -> list[str]:
    """Why the switches change no prediction, as sentences from the model's numbers."""
    T, n_layers = len(text), record.gpt_cfg.n_layers
    labels = [f"{i} {_char(c)}" for i, c in enumerate(text)]
    follows = bool((data.one_char_ids(record, text) == to_numpy(fx.own_ids)).all())
    reasons = [tr("attn.exp.why_one_char", T=T)] if follows else []
    if not sw.causal_mask and record.train_cfg.causal_mask and T > 1:
        key = "attn.exp.why_mask_last" if layer == n_layers - 1 else "attn.exp.why_mask"
        reasons.append(tr(key, last=labels[-1], layer=number(layer)))
    if sw.temperature < Switches.temperature:  # sharper than the model's own softmax
        alphas = data.own_walk(record, text).alphas[layer]  # (h, T, T)
        rows = alphas[:, 1:]
        share = float(rows.amax(dim=-1).mean()) if rows.numel() else 1.0
        key = "attn.exp.why_one_hot" if share >= ONE_HOT_SHARE else "attn.exp.why_sharp"
        reasons.append(tr(key, tau=sw.temperature, share=share, layer=number(layer)))
    k = int(fx.delta_own.argmax())
    dp = float(fx.delta_own[k])
    reasons.append(tr("attn.exp.why_tiny" if dp < TINY_DELTA else "attn.exp.why_small", dp=dp, pos=labels[k]))
    return reasons


def offer_context_example() -> bool:
    """Why to try the context example, and its button; True when it was pressed (the caller then
    reruns the whole page). Not offered when a lesson hides the model choice."""
    if not visible(K_MODEL):
        return False
    return context_button.offer_context_example(
        key="attn_try_context", help=tr("attn.exp.try_context_help", text=EXAMPLES["context"].text)
    )


def set_by_lesson(record: ModelRecord) -> list[str]:
    """The switches a teacher's lesson link set away from the model's own and hides from the
    student, each as "name: value" in the user's language (empty outside a lesson)."""
    ss = st.session_state
    return [
        row.switch.said(row.switch.of(row.key, ss), ss)
        for row in switched(s.ATTENTION, ss, record)
        if row.switch is not None and not visible(row.key)
    ]


def switch_clause(record: ModelRecord, view: Mapping[str, Any] | None = None) -> str:
    """The switch set away from the model's own in ``view`` (the session's when not given), as the
    start of a clause ("with the mask off"); "with the switches" when several (or one without its
    own clause) are."""
    ss = st.session_state if view is None else view
    rows = switched(s.ATTENTION, ss, record)
    one = rows[0].switch if len(rows) == 1 else None
    return one.how(one.of(rows[0].key, ss)) if one is not None and one.how is not None else tr("why.how.switches")


def panel(record: ModelRecord, text: str, layer: int, sw: Switches, others: Switches | None = None) -> PositionEffects:
    """The count, the strip and the reasons (see the module's docstring); returns the effects.
    ``sw``: the switches of ``layer``; ``others``: those of every other layer (None: the model's own).
    The count says where the switches act: the layer, or every layer.

    When nothing changes, the first reason and the context example's button come right after the
    count, before the strip, so they are in view after the click even on a phone.
    """
    fx = data.effects(record, text, layer, sw, others)
    chars, T = list(record.vocab.chars), len(text)
    own = sw == s.own_switches(record) and others in (None, s.own_switches(record))
    L = record.gpt_cfg.n_layers
    every = "_all" if others is not None and L > 1 else ""  # the count's wording: in every layer
    pressed = False
    with st.container(key="effect_count"):
        if lesson_set := set_by_lesson(record):  # the student sees no switch: say what the link set
            said = "attn.lesson_set_teacher" if led_live() else "attn.lesson_set"  # the teacher now, or a link
            st.markdown(tr(said, switches=tr("common.clause_sep").join(lesson_set)))
        where = dict(layer=number(layer), L=L, every=tr("attn.scope.both" if L == 2 else "attn.scope.every", L=L))
        if own:  # where the switches act is said beside the count
            st.markdown(tr(OWN_COUNT[who_flips()] + every, T=T, **where))
        else:
            key = "attn.effect.count_lesson" if lesson_set else "attn.effect.count"
            st.markdown(tr(key + every, n=fx.n_changed, T=T, **where))
        if not fx.n_changed and not own:
            reasons = unchanged_reasons(record, text, layer, sw, fx)
            st.markdown(f"**{tr('attn.exp.why_header')}** {reasons[0]}")
            if record.text != EXAMPLES["context"].text:
                pressed = offer_context_example()
            if len(reasons) > 1:
                with st.expander(tr("attn.effect.more_reasons", n=len(reasons) - 1)):
                    st.markdown("\n".join(f"- {r}" for r in reasons[1:]))
        elif own and not what_attention_decides(record.text):  # nothing to flip: say why before the student tries
            st.markdown(decides_sentence(record))
            pressed = offer_context_example()
        st.html(strip_html(text, fx, chars, text_next(text, record)))
    marks_first = own or predict_marks.made(text)  # without marks, a flip's first reason comes first
    missed = frozenset()
    if marks_first:
        missed = predict_marks.section(record, text, layer, sw, fx)  # the marks before a flip, scored after it
    if fx.n_changed:
        reasons = data.flip_reasons(record, text, layer, sw, others)  # first, so a phone has the first one in view
        reasons = sorted(reasons, key=lambda f: f.position not in missed)  # the student's misses first
        how = switch_clause(record)  # in all layers, each flip's layer is one the switches act in (no knock-on)
        lines = [
            "- " + (tr("attn.marks.miss", why=why) if f.position in missed else why)
            for f in reasons
            for why in (flip_sentence(f, text, chars, f.layer if others is not None else layer, how),)
        ]
        # each false alarm (marked, unchanged) gets its reason in the same form as a miss's, before the misses
        alarms = data.steady_reasons(record, text, layer, sw, predict_marks.false_alarms(text, fx), others)
        alarm_lines = [
            "- " + tr("attn.marks.false_alarm", why=steady_sentence(f, text, chars, layer, how)) for f in alarms
        ]
        lines = [*alarm_lines, *lines]
        for n, line in enumerate(lines[:SHOWN_FLIPS]):
            st.markdown(line)
            if n == 0:  # what the brackets' numbers and α are, right under the first reason that shows them
                st.caption(tr("attn.effect.numbers_note"))  # (above it, a phone's first screen would end first)
        if len(lines) > SHOWN_FLIPS:
            with st.expander(tr("attn.effect.other_reasons", n=len(lines) - SHOWN_FLIPS)):  # the count it lists
                st.markdown("\n".join(lines[SHOWN_FLIPS:]))
        if what_attention_decides(record.text):  # the example's key sentence stays beside its effect
            st.caption(decides_sentence(record))
        st.caption(tr("attn.strip.legend", changed=CHANGED_MARK, right=RIGHT_MARK, wrong=WRONG_MARK))
        if not sw.causal_mask and record.train_cfg.causal_mask:
            st.caption(tr("why.mask_off"))
    elif own and what_attention_decides(record.text):
        st.caption(decides_sentence(record))
        head = data.steps_head(record, text, layer)[0]  # the head that looks back, which the steps open on
        role = next(r for r in data.roles(record, text) if (r.layer, r.head) == (layer, head))
        if role.kind == "previous":
            shown = st.session_state.get(s.K_HEAD) == head
            st.caption(f"{role_sentence(role)} {tr('why.role.steps_open') if shown else ''}".strip())
    if not marks_first:
        predict_marks.section(record, text, layer, sw, fx)  # says that no positions were marked before the flip
    if pressed:
        st.rerun(scope="app")
    return fx


def effects_columns(
    fx: PositionEffects, chars: Sequence[str], text: str, targets: Sequence[str | None]
) -> dict[str, list]:
    """The columns of the detailed table, one row per position: the mark and the prediction under
    the switches first (on a phone the last columns scroll out of view), then the model's own,
    the text's next character, the position, the probabilities and their change."""
    own_ids, new_ids = fx.own_ids.tolist(), fx.new_ids.tolist()
    return {
        tr("attn.exp.changed"): [
            f"{CHANGED_MARK} {tr('attn.exp.changed_yes')}" if c else "" for c in fx.changed.tolist()
        ],
        tr("attn.pred_new_next"): [_char(chars[k]) for k in new_ids],
        tr("attn.pred_own_next"): [_char(chars[k]) for k in own_ids],
        tr("attn.pred_target"): [_char(t) if t is not None else "—" for t in targets],
        tr("attn.pred_pos"): [f"{i} {_char(c)}" for i, c in enumerate(text)],
        tr("attn.exp.p_own"): fx.own_p.tolist(),
        tr("attn.exp.p_new"): fx.new_p.tolist(),
        tr("attn.exp.dp"): fx.delta_own.tolist(),
    }


def details(record: ModelRecord, text: str, layer: int, sw: Switches, fx: PositionEffects) -> None:
    """ "Every position in detail": an expander drawn only while open, with the table of every
    position and the chart of how far each probability moved."""
    if not visible(s.K_DETAILS):
        return
    box = st.expander(tr("attn.effect.details"), key=s.K_DETAILS, on_change="rerun", icon=":material/table:")
    if not box.open:
        return
    chars = list(record.vocab.chars)
    labels = [f"{i} {_char(c)}" for i, c in enumerate(text)]
    with box:
        if not sw.causal_mask and fx.n_changed and not bool(fx.changed[-1]):
            st.caption(tr("attn.exp.mask_last_note", last=labels[-1]))
        probabilities = (tr("attn.exp.p_own"), tr("attn.exp.p_new"), tr("attn.exp.dp"))
        show_table(
            text_table(
                effects_columns(fx, chars, text, text_next(text, record)),
                dict.fromkeys(probabilities, format_probability),
                highlight=fx.changed.tolist(),
            ),
            hide_index=True,
            max_height=560,
        )
        own_text = [f"{chars[k]} {p:.3f}" for k, p in zip(fx.own_ids.tolist(), fx.own_p.tolist())]
        new_text = [f"{chars[k]} {p:.3f}" for k, p in zip(fx.new_ids.tolist(), fx.new_p.tolist())]
        spec = effects_spec(
            labels,
            own_text,
            new_text,
            fx.delta_own,
            fx.changed,
            changed_label=f"{CHANGED_MARK} {tr('attn.exp.changed_yes')}",
            same_label=tr("attn.exp.same"),
            mark=CHANGED_MARK,
            x_title=tr("attn.axis_pos"),
            y_title=tr("attn.exp.dp"),
            own_title=tr("attn.pred_own_next"),
            new_title=tr("attn.pred_new_next"),
            description=tr("attn.exp.effects_text", T=len(labels), mark=CHANGED_MARK),
        )
        st.vega_lite_chart(spec, width="stretch")
        figure_downloads(
            spec, "attn_effects_figure", tr("attn.exp.header"), file_stem=f"attention_effects_layer{layer}"
        )
        st.caption(tr("attn.exp.chart_caption", mark=CHANGED_MARK))
        own, new = fx.own_probs[-1], fx.new_probs[-1]  # (V,)
        st.markdown(tr("attn.pred_last", pos=labels[-1]))
        show_table(
            text_table(
                {
                    tr("attn.pred_char"): [_char(c) for c in chars],
                    tr("attn.pred_own"): own.tolist(),
                    tr("attn.pred_new"): new.tolist(),
                    tr("attn.pred_diff"): (new - own).tolist(),
                },
                {
                    tr("attn.pred_own"): format_probability,
                    tr("attn.pred_new"): format_probability,
                    tr("attn.pred_diff"): format_change,
                },
            ),
            hide_index=True,
        )
