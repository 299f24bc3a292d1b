"""Top-p (nucleus) sampling beside top-k (Holtzman et al. 2019): the kept set, the renormalised
probabilities, the order with top-k (top-k first, as Hugging Face applies them), p = 1 as no top-p."""

from __future__ import annotations

import pytest
import torch
from helpers import small_model
from hypothesis import given, settings
from hypothesis import strategies as st

from tinygpt.generate import DecodeConfig, generate, sampling_distribution, top_p_keep
from tinygpt.ui.views.predict_table import P_STRATEGY, P_TOP_P

#: A distribution whose sums are exact in binary: 0.5, 0.75, 0.875, 1.
PROBS = torch.tensor([0.125, 0.5, 0.25, 0.125])


@pytest.mark.parametrize(
    "p, kept",
    [
        (0.01, [1]),  # the most probable character is always kept
        (0.5, [1]),  # 0.5 reaches 0.5
        (0.6, [1, 2]),
        (0.75, [1, 2]),  # 0.5 + 0.25 reaches 0.75 exactly
        (0.76, [0, 1, 2]),  # equal probabilities (0 and 3) in vocabulary order
        (0.875, [0, 1, 2]),
        (0.9, [0, 1, 2, 3]),
        (1.0, [0, 1, 2, 3]),
    ],
)
def test_the_kept_set_is_the_smallest_set_of_most_likely_characters_reaching_p(p, kept):
    assert torch.nonzero(top_p_keep(PROBS, p)).flatten().tolist() == kept


def test_the_kept_characters_are_renormalised():
    dist = sampling_distribution(PROBS, DecodeConfig(temperature=1.0, top_p=0.75))
    assert torch.allclose(dist, torch.tensor([0.0, 2 / 3, 1 / 3, 0.0]), atol=1e-7)
    dist = sampling_distribution(PROBS, DecodeConfig(temperature=1.0, top_p=0.8))
    assert torch.allclose(dist, torch.tensor([1 / 7, 4 / 7, 2 / 7, 0.0]), atol=1e-7)


def test_top_k_is_applied_first_then_top_p():
    probs = torch.tensor([0.1, 0.4, 0.3, 0.2])
    # top-k 3 drops 0.1: (0, 4/9, 3/9, 2/9); its nucleus for 0.7 is 4/9 + 3/9 ≥ 0.7 -> (0, 4/7, 3/7, 0)
    dist = sampling_distribution(probs, DecodeConfig(temperature=1.0, top_k=3, top_p=0.7))
    assert torch.allclose(dist, torch.tensor([0.0, 4 / 7, 3 / 7, 0.0]), atol=1e-7)
    # top-p 0.5 alone keeps 0.4 and 0.3 (0.4 < 0.5); after top-k 2 the first is 4/7 ≥ 0.5, kept alone
    assert top_p_keep(probs, 0.5).tolist() == [False, True, True, False]
    dist = sampling_distribution(probs, DecodeConfig(temperature=1.0, top_k=2, top_p=0.5))
    assert dist.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_temperature_reshapes_before_the_nucleus_is_taken():
    # τ = 0.5 squares the probabilities: (1, 16, 4, 1)/22; the nucleus for 0.9 is 16/22 + 4/22 = 0.909
    dist = sampling_distribution(PROBS, DecodeConfig(temperature=0.5, top_p=0.9))
    assert torch.allclose(dist, torch.tensor([0.0, 0.8, 0.2, 0.0]), atol=1e-6)


def test_p_1_is_no_top_p():
    record = small_model()
    for decode in (DecodeConfig(temperature=1.3, seed=4), DecodeConfig(temperature=0.7, top_k=2, seed=9)):
        with_p1 = DecodeConfig(decode.temperature, decode.top_k, decode.seed, top_p=1.0)
        for probs in (PROBS, torch.softmax(torch.randn(7, generator=torch.Generator().manual_seed(1)), 0)):
            assert torch.equal(sampling_distribution(probs, decode), sampling_distribution(probs, with_p1))
        a = generate(record.model, record.vocab, "你", 12, decode)
        b = generate(record.model, record.vocab, "你", 12, with_p1)
        assert [s.chosen for s in a] == [s.chosen for s in b]
        assert all(torch.equal(x.sampling_probs, y.sampling_probs) for x, y in zip(a, b))


def test_a_tiny_p_samples_the_most_probable_character_every_step():
    record = small_model()
    steps = generate(record.model, record.vocab, "你", 12, DecodeConfig(temperature=2.0, seed=3, top_p=1e-6))
    assert all(s.chosen == record.vocab.chars[int(s.probs.argmax())] for s in steps)
    assert all(s.sampling_probs.max() == 1.0 for s in steps)


@pytest.mark.parametrize("p", [0.0, -0.1, 1.01, float("nan"), float("inf")])
def test_p_outside_0_1_is_refused(p):
    with pytest.raises(ValueError, match="top_p"):
        DecodeConfig(temperature=1.0, top_p=p)


def hugging_face_keep(probs: torch.Tensor, p: float) -> torch.Tensor:
    """The kept mask of transformers' TopPLogitsWarper (ascending sort; drop while the cumulative
    mass is at most 1 - p; keep at least one), written out for comparison."""
    sorted_probs, idx = torch.sort(probs.double(), descending=False, stable=True)
    remove = torch.cumsum(sorted_probs, 0) <= (1 - p)
    remove[-1] = False
    return torch.zeros_like(remove).scatter(0, idx, ~remove)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(1, 1000), min_size=1, max_size=12),
    st.floats(0.01, 0.99),
)
def test_the_kept_set_is_hugging_faces_on_distinct_probabilities(weights, p):
    probs = torch.tensor(weights, dtype=torch.float64)
    probs = probs / probs.sum()
    total = 0.0
    for q in sorted(probs.tolist(), reverse=True):  # away from the boundary, where rounding decides
        total += q
        if abs(total - p) < 1e-9 or abs((1 - total) - (1 - p)) < 1e-9:
            return
    if len(set(weights)) != len(weights):
        return  # ties: the two break them in different orders
    assert torch.equal(top_p_keep(probs, p), hugging_face_keep(probs, p))


# ---------------------------------------------------------------- the Predict page's control


def open_predict(lang: str, **params: str):
    from helpers import open_page

    return open_page("predict", lang, model="textbook", **params)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_predict_page_samples_from_the_nucleus_and_shows_the_kept_set(lang):
    import numpy as np
    from helpers import tables

    from tinygpt.i18n import t

    at = open_predict(lang, prefix="你", n="6", decode="temperature", tau="5", p="0.5")
    assert not at.exception and at.slider(key=P_TOP_P).value == pytest.approx(0.5)
    assert not at.slider(key=P_TOP_P).disabled
    detail = tables(at)[0].value  # the step's table (every position's is closed)
    sampled = detail[t("predict.col_sampled", lang)].to_numpy(dtype=float)
    p = detail["p"].to_numpy(dtype=float)
    kept = sampled > 0
    assert 1 <= kept.sum() < 4 and abs(sampled.sum() - 1) < 1e-3
    # τ = 5 flattens p; the kept ones are the most probable of that flattened distribution
    flat = p ** (1 / 5) / (p ** (1 / 5)).sum()
    order = np.argsort(-flat, kind="stable")
    n = kept.sum()
    assert set(np.flatnonzero(kept)) == set(order[:n]) and flat[order[: n - 1]].sum() < 0.5 <= flat[order[:n]].sum()
    chars = [c for c, k in zip(detail[t("predict.col_char", lang)], kept) if k]
    caption = t("predict.top_p_kept", lang, p="0.5", n=int(n), V=4, chars=" ".join(chars))
    assert caption in [c.value for c in at.caption]
    assert at.query_params["p"] == "0.5"


def test_greedy_leaves_top_p_off_and_out_of_the_link():
    at = open_predict("en", prefix="你", n="3", p="0.3")
    assert at.slider(key=P_TOP_P).disabled and "p" in at.query_params
    assert not any("Top-p" in c.value for c in at.caption)  # greedy: nothing sampled, no nucleus shown
    at.radio(key=P_STRATEGY).set_value("temperature").run()
    assert not at.slider(key=P_TOP_P).disabled and at.query_params["p"] == "0.3"
    at.slider(key=P_TOP_P).set_value(1.0).run()
    assert "p" not in at.query_params and not any("Top-p" in c.value for c in at.caption)  # 1 = no top-p
