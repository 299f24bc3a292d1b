"""The reasons under the strip, in words a first-year student reads before the numbers.

Each changed position gets one sentence without symbols first ("爱 used to look at 我, the
character before it; with the mask off it looks at 她, 11 after it"), then what it now predicts
and whether that is right, then the numbers in brackets (the layer and head counted from 1, α
before and after). The records come from :mod:`tinygpt.explanations.why`; this module only words them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinygpt.explanations.why import MOVED, Flip, HeadRole
from tinygpt.formatting import char_name, number
from tinygpt.ui.frame.language import md_escape, tr


def shown_char(c: str) -> str:
    """A character as the strip and the sentences show it (a space or an invisible one named)."""
    return "␣" if c == " " else char_name(c)


def quoted(c: str) -> str:
    """A character in the page's quotation marks, escaped for Markdown."""
    return tr("why.quoted", c=md_escape(shown_char(c)))


def where(j: int, i: int) -> str:
    """Where key ``j`` sits seen from query ``i``: "position j, the character before it"."""
    d = i - j
    if d == 0:
        rel = tr("why.where.self")
    elif d == 1:
        rel = tr("why.where.prev")
    elif d > 0:
        rel = tr("why.where.before", d=d)
    else:
        rel = tr("why.where.after", d=-d)
    return tr("why.where", j=j, rel=rel)


def _fields(f: Flip, text: str, how: str) -> dict[str, object]:
    """The fields of a reason's plain sentence: the position's character, where it looked before
    (``k0``, ``w0``) and under the switches (``k1``, ``w1``), how many it may see, the switches,
    its layer and head counted from 1."""
    return dict(
        c=quoted(text[f.position]),
        k0=quoted(text[f.key_before]),
        w0=where(f.key_before, f.position),
        k1=quoted(text[f.key_after]),
        w1=where(f.key_after, f.position),
        n=f.n_keys,
        how=how,
        layer=number(f.layer),
        head=number(f.head),
    )


def _plain(f: Flip, text: str, switched: int, how: str) -> str:
    """The sentence without symbols: where the position looked before and after."""
    fields = {**_fields(f, text, how), "switched": number(switched)}
    same_key = f.key_after == f.key_before
    if f.head_off:
        return tr("why.plain.off", **fields)
    if f.layer != switched:  # a later layer: it reads what the switched layer passed on
        return tr("why.plain.knock_same" if same_key else "why.plain.knock_moved", **fields)
    if f.uniform_after:
        return tr("why.plain.uniform", **fields)
    if not same_key:
        return tr("why.plain.moved", **fields)
    if f.alpha_after < f.alpha_before - MOVED:
        return tr("why.plain.spread", **fields)
    if f.alpha_after > f.alpha_before + MOVED:
        return tr("why.plain.sharper", **fields)
    return tr("why.plain.same", **fields)


def _numbers(f: Flip, text: str) -> str:
    """The numbers behind the sentence: the layer and head (from 1) and α before → after."""
    fields = dict(
        layer=number(f.layer),
        head=number(f.head),
        k0=quoted(text[f.key_before]),
        a0=f.alpha_before,
        k1=quoted(text[f.key_after]),
        a1=f.alpha_after,
    )
    if f.head_off:
        return tr("why.numbers.off", **fields)
    if f.uniform_after:
        return tr("why.numbers.uniform", **fields)
    if f.key_after == f.key_before:
        return tr("why.numbers.same", **fields)
    return tr("why.numbers.moved", **fields)


def flip_sentence(f: Flip, text: str, chars: Sequence[str], switched: int, how: str | None = None) -> str:
    """One changed position in words, from its :class:`~tinygpt.explanations.why.Flip`: the plain sentence,
    the new prediction against the text, then the numbers. ``switched``: the layer the switches
    act on (a flip seen in a later layer is a knock-on effect of it); ``how``: the switch named
    (``tinygpt.ui.attention.effect.switch_clause``), "with the switches" when not given."""
    how = how or tr("why.how.switches")
    if f.target is None:
        verdict = tr("why.end")
    else:
        t = quoted(chars[f.target])
        verdict = tr("why.right" if f.right else "why.also_wrong" if not f.was_right else "why.wrong", t=t)
    return tr(
        "why.flip",
        pos=md_escape(f"{f.position} {shown_char(text[f.position])}"),
        plain=_plain(f, text, switched, how),
        new=quoted(chars[f.new]),
        own=quoted(chars[f.own]),
        verdict=verdict,
        numbers=_numbers(f, text),
    )


def role_sentence(role: HeadRole) -> str:
    """What one head does, in words (``tinygpt.explanations.why.head_roles``), the layer and head counted from 1."""
    return tr(f"why.role.{role.kind}", layer=number(role.layer), head=number(role.head), share=role.share)


def steady_sentence(f: Flip, text: str, chars: Sequence[str], switched: int, how: str | None = None) -> str:
    """A position the student expected to change that did not (a false alarm), in the same form as
    :func:`flip_sentence`: where it looked before and under the switches, why that still leads to
    the same character, the verdict, then the numbers. ``f`` has ``own == new``
    (:func:`tinygpt.explanations.why.steady`)."""
    fields = _fields(f, text, how or tr("why.how.switches"))
    if f.head_off:
        plain = tr("why.steady.off", **fields)
    elif f.uniform_after:
        plain = tr("why.steady.uniform", **fields)
    elif f.key_after != f.key_before:
        plain = tr("why.steady.moved", **fields)
    else:
        plain = tr("why.steady.same", **fields)
    if f.target is None:
        verdict = tr("why.end")
    else:
        verdict = tr("why.right" if f.right else "why.also_wrong", t=quoted(chars[f.target]))
    return tr(
        "why.steady",
        pos=md_escape(f"{f.position} {shown_char(text[f.position])}"),
        plain=plain,
        own=quoted(chars[f.own]),
        verdict=verdict,
        numbers=_numbers(f, text),
    )
