"""The reasons under the strip: a plain sentence first, then the verdict, then the numbers; layers
and heads counted from 1 (index 0 is "layer 1", "head 1").

The records are built by hand (:class:`tinygpt.explanations.why.Flip`), so each kind of flip is checked
whatever model a machine trains.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tinygpt.attention import Switches
from tinygpt.explanations.why import Flip, HeadRole
from tinygpt.formatting import number
from tinygpt.i18n import t
from tinygpt.ui.attention import effect, reasons
from tinygpt.ui.frame.controls import view_values
from tinygpt.ui.views import attention_table as table

TEXT = "我爱你，你爱我。他爱她，她爱他"
CHARS = sorted(set(TEXT))


def _id(c: str) -> int:
    return CHARS.index(c)


def flip(**fields: object) -> Flip:
    """Position 1 (爱) looking at 我 (position 0), now predicting 他 where the text has 你."""
    base = dict(
        position=1,
        layer=0,
        head=1,
        key_before=0,
        alpha_before=0.97,
        key_after=12,
        alpha_after=0.98,
        uniform_after=False,
        n_keys=15,
        head_off=False,
        own=_id("你"),
        new=_id("他"),
        target=_id("你"),
    )
    return Flip(**(base | fields))


@pytest.fixture(params=["en", "zh"])
def lang(request, monkeypatch) -> str:
    for module in (reasons, effect, table):
        monkeypatch.setattr(module, "tr", lambda key, **f: t(key, request.param, **f))
    return request.param


#: A model trained with the causal mask, as the Attention table's defaults read it.
MASKED = SimpleNamespace(train_cfg=SimpleNamespace(causal_mask=True), gpt_cfg=SimpleNamespace(d_head=8))


def how(**changes) -> str:
    """The clause naming the switches ``changes`` (session key -> value) set away from the model's own."""
    return effect.switch_clause(MASKED, {**view_values(table.ATTENTION, MASKED), **changes})


def test_people_count_layers_and_heads_from_1():
    assert [number(k) for k in range(3)] == [1, 2, 3]


def test_a_moved_key_is_said_in_a_plain_sentence_before_any_alpha(lang):
    clause = how(**{table.K_MASK: False})
    text = reasons.flip_sentence(flip(), TEXT, CHARS, 0, clause)
    if lang == "en":
        assert text.startswith(
            "**1 爱**: “爱” used to look at “我” (position 0, the character before it); with the mask off it looks"
            " at “她” (position 12, 11 after it, in the future). So it predicts “他” instead of “你”: wrong,"
        )
        assert text.endswith("(layer 1, head 2: α on “我” 0.97 → α on “她” 0.98)")  # index 1 of layer 0
    else:
        assert text.startswith("**1 爱**：“爱” 原来看的是 “我”（位置 0，它前面的那个字）；关掉掩码后，它看的是 “她”")
        assert text.endswith("（第 1 层、头 2：“我” 的 α 0.97 → “她” 的 α 0.98）")
    assert text.index("α") > text.index(t("why.wrong", lang, t="“你”"))  # the numbers come after the verdict


def test_the_same_key_with_less_weight_says_the_attention_spread_out(lang):
    spread = flip(key_after=0, alpha_before=1.0, alpha_after=0.14)
    text = reasons.flip_sentence(spread, TEXT, CHARS, 0, how(**{table.K_TAU: 1000.0}))
    if lang == "en":
        assert "with τ = 1000 its attention spreads out: “我” still gets the most, but only a small part." in text
        assert "(layer 1, head 2: α on “我” 1.00 → 0.14)" in text
    else:
        assert "τ = 1000 时，它的注意力摊开了" in text and "“我” 的 α 1.00 → 0.14" in text


def test_a_knock_on_flip_in_a_later_layer_says_what_the_switched_layer_changed(lang):
    knock = flip(layer=1, head=0, key_before=0, key_after=0, alpha_before=0.93, alpha_after=0.90)
    text = reasons.flip_sentence(knock, TEXT, CHARS, 0, how(**{table.K_HEADS_OFF: [1]}))
    if lang == "en":
        assert "The switches change what layer 1 computes (with head 2 off)" in text
        assert "In layer 2, “爱” still looks at “我” (position 0, the character before it): the right place" in text
    else:
        assert "开关改变了第 1 层算出的东西（关掉头 2 后）" in text and "“爱” 在第 2 层仍然看 “我”" in text


def test_uniform_and_head_off_flips_name_what_the_switch_did(lang):
    uniform = reasons.flip_sentence(flip(uniform_after=True, alpha_after=0.5, n_keys=2), TEXT, CHARS, 0)
    off = reasons.flip_sentence(flip(head_off=True, key_after=0), TEXT, CHARS, 0)
    if lang == "en":
        assert "treats all 2 characters it may see alike" in uniform and "every α 0.50" in uniform
        assert "through head 2 of layer 1" in off and "(layer 1, head 2 off; its α on “我” was 0.97)" in off
    else:
        assert "对能看到的 2 个字一视同仁" in uniform and "每个字的 α 都是 0.50" in uniform
        assert "靠第 1 层的头 2 去看" in off


def test_several_switches_are_named_together_and_the_last_position_has_no_verdict(lang):
    several = how(**{table.K_MASK: False, table.K_TAU: 2.0})
    assert several == t("why.how.switches", lang)
    assert how(**{table.K_EDITING: True}) == how() == t("why.how.switches", lang)  # editing without an edit: nothing
    last = reasons.flip_sentence(flip(position=14, target=None), TEXT, CHARS, 0, several)
    assert t("why.end", lang) in last


def test_a_head_role_names_the_head_from_1(lang):
    sentence = reasons.role_sentence(HeadRole(0, 1, "previous", 0.67))
    expected = "Head 2 of layer 1 looks at the previous character" if lang == "en" else "第 1 层的头 2 看的是前一个字"
    assert sentence.startswith(expected) and "67%" in sentence


def test_a_false_alarm_gets_a_record_of_the_row_that_moved_and_of_the_same_prediction():
    import torch

    from tinygpt.explanations.explain import Walk
    from tinygpt.explanations.why import steady

    def walk(row2: list[float], predicted: list[int]) -> Walk:
        alphas = torch.tensor([[[[1.0, 0, 0], [0.5, 0.5, 0], row2]]])  # (L=1, h=1, T=3, T=3)
        logits = torch.nn.functional.one_hot(torch.tensor(predicted), 3).float()[None]  # (1, T, V=3)
        return Walk([], [], alphas, logits, [Switches()], None)

    own = walk([0.1, 0.8, 0.1], [0, 1, 2])
    new = walk([1 / 3, 1 / 3, 1 / 3], [0, 2, 2])  # uniform attention: position 1 changes, 0 and 2 do not
    ids = torch.tensor([1, 2, 0])
    (record,) = steady(own, new, ids, 0, Switches(uniform_heads=(0,)), [1, 2])  # 1 changed: not a false alarm
    assert (record.position, record.layer, record.head) == (2, 0, 0)
    assert (record.key_before, record.key_after, record.n_keys, record.uniform_after) == (1, 0, 3, True)
    assert record.alpha_before == pytest.approx(0.8) and record.alpha_after == pytest.approx(1 / 3)
    assert record.own == record.new == 2 and record.target is None
    assert [f.position for f in steady(own, new, ids, 0, Switches(), [0, 7])] == [0]  # 7: not in the text


def test_a_false_alarm_is_said_in_the_same_form_as_a_miss(lang):
    how_ = how(**{table.K_UNIFORM: True})
    alarm = flip(uniform_after=True, alpha_after=0.5, n_keys=2, new=_id("你"))  # 1 爱 still predicts 你
    text = reasons.steady_sentence(alarm, TEXT, CHARS, 0, how_)
    if lang == "en":
        assert text.startswith(
            "**1 爱**: “爱” used to look at “我” (position 0, the character before it); with uniform attention it"
            " treats all 2 characters it may see alike, and what it reads from them still leads to the same next"
            " character. So it still predicts “你”: right, the text continues with “你”."
        )
    else:
        assert text.startswith(
            "**1 爱**：“爱” 原来看的是 “我”（位置 0，它前面的那个字）；换成均匀注意力后，它对能看到的 2 个字一视同仁"
        )
        assert "所以它仍然预测 “你”：对了" in text
    assert text.endswith(reasons._numbers(alarm, TEXT))  # the numbers last, as for a flip
    moved = reasons.steady_sentence(flip(key_after=3, new=_id("你")), TEXT, CHARS, 0, how_)
    assert ("what it reads there still leads to the same next" if lang == "en" else "仍然得出同一个下一字") in moved
