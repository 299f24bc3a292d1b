"""Guess, then reveal: each question's answer is the model's own number (tinygpt.explanations.exercises)."""

from __future__ import annotations

import pytest
import torch
from helpers import SMALL, seed_model

from tinygpt.attention import STEP_IDS, Switches
from tinygpt.explanations.exercises import (
    NONE,
    STEP_QUESTIONS,
    QuestionKind,
    argmax_key_question,
    head_off_question,
    masked_cells_question,
    next_char_question,
    question_for,
    row_sum_question,
)
from tinygpt.explanations.explain import trace_of
from tinygpt.generate import next_char_probs
from tinygpt.i18n import CATALOGUE
from tinygpt.training.train import new_model

TEXT = "你好世界"


@pytest.fixture(scope="module")
def seed():
    """The seed model, the ids of 你好世界 and its layer-0 trace."""
    record = seed_model()
    idx = record.vocab.encode(TEXT)[None]  # (1, 4)
    trace = trace_of(record.model, idx, 0)
    trace.tokens = list(TEXT)
    return record, idx, trace


def test_every_step_is_listed_and_steps_without_a_question_say_so(seed):
    _, _, trace = seed
    assert list(STEP_QUESTIONS) == list(STEP_IDS)
    assert [s for s, kinds in STEP_QUESTIONS.items() if not kinds] == ["projection", "split_heads"]
    assert question_for("projection", trace, 0, 2) is None and question_for("split_heads", trace, 0, 2) is None
    with pytest.raises(KeyError):
        question_for("no_such_step", trace, 0, 2)
    with pytest.raises(ValueError, match="row_sum"):
        question_for("scores", trace, 0, 2, kind=QuestionKind.ROW_SUM)
    with pytest.raises(ValueError, match="model and idx"):
        question_for("weighted_sum", trace, 0, 2)
    with pytest.raises(IndexError, match="0..3"):
        question_for("softmax", trace, 0, 4)


def test_argmax_key_of_row_2_is_the_largest_weight_the_trace_holds(seed):
    _, _, trace = seed
    row = trace.state["alpha"][0, 0, 2]  # (T,) layer 0, head 0, query 2 (世)
    assert row.tolist() == pytest.approx([0.154564, 0.714460, 0.130976, 0.0], abs=1e-5)
    for step in ("scores", "scale", "mask", "softmax"):
        q = question_for(step, trace, 0, 2, kind=QuestionKind.ARGMAX_KEY)
        assert q.answers == {"1"} and int(row.argmax()) == 1
        assert [c.text for c in q.choices] == ["0 你", "1 好", "2 世"]  # the keys the mask allows
        assert q.reason_key == "ex.argmax_key.reason"
        assert dict(q.reason_fields) == {"i": 2, "j": 1, "value": float(row[1])}
        assert q.is_right("1") and not q.is_right("0") and not q.is_right(None)
    unmasked = trace.with_switches(Switches(causal_mask=False))
    q = argmax_key_question(unmasked, 0, 2)
    assert len(q.choices) == 4 and q.answers == {str(int(unmasked.state["alpha"][0, 0, 2].argmax()))}


def test_a_uniform_head_ties_every_allowed_key(seed):
    _, _, trace = seed
    q = argmax_key_question(trace.with_switches(Switches(uniform_heads=(0,))), 0, 2)
    assert q.answers == {"0", "1", "2"} and q.reason_key == "ex.argmax_key.reason_tie"
    assert dict(q.reason_fields)["value"] == pytest.approx(1 / 3)


def test_masked_cells_are_the_future_keys_with_the_mask_and_none_without(seed):
    _, _, trace = seed
    q = question_for("mask", trace, 0, 2)
    assert q.kind is QuestionKind.MASKED_CELLS and q.multiple
    assert q.answers == {"3"} and bool(torch.isneginf(trace.state["S_masked"][0, 0, 2, 3]))
    assert q.is_right({"3"}) and not q.is_right({"3", "2"}) and not q.is_right({NONE})
    assert masked_cells_question(trace, 0, 0).answers == {"1", "2", "3"}
    last = masked_cells_question(trace, 0, 3)
    assert last.answers == {NONE} and last.reason_key == "ex.masked_cells.reason_last"
    off = masked_cells_question(trace.with_switches(Switches(causal_mask=False)), 0, 2)
    assert off.answers == {NONE} and off.reason_key == "ex.masked_cells.reason_off" and off.is_right([NONE])


def test_row_sum_is_one_and_the_reason_shows_the_sum_the_trace_holds(seed):
    _, _, trace = seed
    q = question_for("softmax", trace, 0, 2, kind=QuestionKind.ROW_SUM)
    assert q.answers == {"1"} and [c.id for c in q.choices] == ["0", "1", "3", "4", "depends"]
    assert dict(q.reason_fields)["total"] == pytest.approx(float(trace.state["alpha"][0, 0, 2].double().sum()), abs=0)
    assert dict(q.reason_fields)["total"] == pytest.approx(1.0, abs=1e-6)
    assert [c.id for c in row_sum_question(trace, 0, 0).choices] == ["0", "1", "4", "depends"]  # i + 1 = 1 once


def test_head_off_on_the_seed_model_changes_nothing_and_the_reason_names_the_largest_change(seed):
    record, idx, trace = seed
    q = question_for("weighted_sum", trace, 0, 2, model=record.model, idx=idx)
    assert q.answers == {NONE} and q.reason_key == "ex.head_off.reason_none"
    with torch.no_grad():
        own = torch.softmax(record.model(idx)[0].double(), -1)  # (T, V)
        off = torch.softmax(record.model(idx, {0: Switches(heads_off=(0,))})[0].double(), -1)
    assert torch.equal(own.argmax(-1), off.argmax(-1))
    delta = (off - own).abs().gather(-1, own.argmax(-1)[:, None])[:, 0]  # (T,)
    fields = dict(q.reason_fields)
    assert fields["position"] == int(delta.argmax()) and fields["delta"] == pytest.approx(float(delta.max()), abs=1e-12)
    assert 0 < fields["delta"] < 1e-3


def test_head_off_names_the_positions_whose_prediction_changes():
    model = new_model(SMALL, 2).eval()  # untrained: its heads matter at some positions
    idx = torch.tensor([[0, 1, 2, 3, 0, 1]])
    with torch.no_grad():
        own = model(idx)[0].argmax(-1)
        off = model(idx, {0: Switches(heads_off=(0,))})[0].argmax(-1)
    expected = {str(k) for k in (own != off).nonzero().flatten().tolist()}
    assert expected == {"4"}
    q = head_off_question(model, idx, 0, 0, tokens="abcdab")
    assert q.answers == expected and q.reason_key == "ex.head_off.reason"
    assert dict(q.reason_fields)["positions"] == "4 a" and [c.text for c in q.choices][:2] == ["0 a", "1 b"]


def test_next_char_is_the_models_argmax(seed):
    record, _, _ = seed
    probs = next_char_probs(record.model, record.vocab, TEXT)[-1]  # (V,)
    q = next_char_question(probs, record.vocab.chars, TEXT)
    assert q.answers == {"你"} and [c.id for c in q.choices] == list(record.vocab.chars)
    assert dict(q.reason_fields)["p"] == pytest.approx(float(probs.max())) and float(probs.max()) > 0.99
    assert next_char_question(
        next_char_probs(record.model, record.vocab, "你好")[-1], record.vocab.chars, "你好"
    ).answers == {"世"}
    with pytest.raises(ValueError, match="one per character"):
        next_char_question(probs[:3], record.vocab.chars, TEXT)


def test_every_prompt_and_reason_key_is_in_the_catalogue(seed):
    record, idx, trace = seed
    questions = [
        question_for(step, trace, 0, q, kind, record.model, idx)
        for step, kinds in STEP_QUESTIONS.items()
        for kind in kinds
        for q in range(4)
    ]
    questions.append(
        next_char_question(next_char_probs(record.model, record.vocab, TEXT)[-1], record.vocab.chars, TEXT)
    )
    for q in questions:
        assert q.prompt_key in CATALOGUE and q.reason_key in CATALOGUE
        assert all(c.key in CATALOGUE for c in q.choices if c.key)
        assert q.answers <= {c.id for c in q.choices}
