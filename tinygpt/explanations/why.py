"""Why, in words a student can check against the numbers: why a switch flipped a prediction, what a
head does, what a text asks of attention, and whether a trained model relies on attention at all.

Everything here is computed from the model's own numbers (:func:`tinygpt.explanations.explain.walk`) or from
the text; nothing is a canned story. The pages turn these records into sentences in the user's
language. This module sits above ``tinygpt.explanations.explain`` and is imported by the pages' helpers only.

Shapes: T sequence length, h n_heads, L n_layers, V vocab_size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from tinygpt.attention import Switches
from tinygpt.explanations.explain import Walk, position_effects, walk
from tinygpt.model import GPT
from tinygpt.vocab import CharVocab, training_pairs

#: A row of α moved by less than this (half its L1 distance) counts as unmoved.
MOVED = 0.05
#: A head "looks at" a relative position when its rows put at least this weight there on average.
ROLE_SHARE = 0.5
#: Training windows :func:`attention_reliance` evaluates at most (evenly spread over the text).
MAX_WINDOWS = 64


# ---------------------------------------------------------------- why a switch flipped a prediction


@dataclass(frozen=True)
class Flip:
    """Why the prediction at one position changed under the switches.

    Attributes:
        position: the query position i whose predicted next character changed.
        layer, head: where row i of α moved most (L1 distance between the model's own row and the
            switched row); for a head switched off, the head itself when no row moved.
        key_before, alpha_before: the key the row weighted most in the model's own attention, and
            that weight.
        key_after, alpha_after: the same under the switches (for a uniform row: its first key).
        uniform_after: the switched row spreads its weight evenly over ``n_keys`` keys.
        n_keys: the keys the switched row could see.
        head_off: the head of ``layer`` is switched off: α is unchanged, its output no longer
            reaches the prediction.
        own, new: the predicted character ids, own and under the switches.
        target: the id of the character that follows in the text, or None (the last position).
    """

    position: int
    layer: int
    head: int
    key_before: int
    alpha_before: float
    key_after: int
    alpha_after: float
    uniform_after: bool
    n_keys: int
    head_off: bool
    own: int
    new: int
    target: int | None

    @property
    def right(self) -> bool | None:
        """Whether the new prediction is the text's next character (None when there is none)."""
        return None if self.target is None else self.new == self.target

    @property
    def was_right(self) -> bool | None:
        """Whether the model's own prediction was the text's next character (None when there is none)."""
        return None if self.target is None else self.own == self.target


def flips(own: Walk, new: Walk, ids: torch.Tensor, switched_layer: int, switches: Switches) -> list[Flip]:
    """One :class:`Flip` for every position whose predicted character differs between ``own`` (the
    model's own walk of ``ids``) and ``new`` (the walk with ``switches`` in ``switched_layer``).

    Args:
        own, new: walks of the same text, (L, h, T, T) α and (1, T, V) logits each.
        ids: the text's token ids, (T,) or (1, T): the target of position i is ids[i + 1].
    """
    changed = own.logits[0].argmax(dim=-1) != new.logits[0].argmax(dim=-1)  # (T,)
    return [_at(i, own, new, ids, switched_layer, switches) for i in changed.nonzero().flatten().tolist()]


def steady(
    own: Walk, new: Walk, ids: torch.Tensor, switched_layer: int, switches: Switches, positions: Sequence[int]
) -> list[Flip]:
    """The same record as :func:`flips` for each of ``positions`` whose prediction did *not* change
    (a student's false alarm): where its row of α moved most and what it weighted before and after,
    with ``own == new``. Positions that changed or lie outside the text are left out; the order
    of ``positions`` is kept."""
    T = own.logits.shape[1]
    changed = own.logits[0].argmax(dim=-1) != new.logits[0].argmax(dim=-1)  # (T,)
    return [_at(i, own, new, ids, switched_layer, switches) for i in positions if 0 <= i < T and not bool(changed[i])]


def _at(i: int, own: Walk, new: Walk, ids: torch.Tensor, switched_layer: int, switches: Switches) -> Flip:
    """The :class:`Flip` record of position ``i`` (see :func:`flips`), changed or not."""
    ids = ids.reshape(-1)
    T = ids.shape[0]
    own_id, new_id = int(own.logits[0, i].argmax()), int(new.logits[0, i].argmax())
    moved = (new.alphas[:, :, i] - own.alphas[:, :, i]).abs().sum(dim=-1) / 2  # (L, h): total variation of row i
    layer, head = divmod(int(moved.argmax()), moved.shape[1])
    head_off = False
    if float(moved[layer, head]) < MOVED and switches.heads_off:
        layer, head, head_off = switched_layer, switches.heads_off[0], True
    before, after = own.alphas[layer, head, i], new.alphas[layer, head, i]  # (T,) each
    seen = int((after > 0).sum())
    uniform = seen > 1 and bool(torch.allclose(after[after > 0], after[after > 0][0].expand(seen), atol=1e-6))
    return Flip(
        position=i,
        layer=layer,
        head=head,
        key_before=int(before.argmax()),
        alpha_before=float(before.max()),
        key_after=int(after.argmax()),
        alpha_after=float(after.max()),
        uniform_after=uniform,
        n_keys=seen,
        head_off=head_off,
        own=own_id,
        new=new_id,
        target=int(ids[i + 1]) if i + 1 < T else None,
    )


# ---------------------------------------------------------------- what a head does


@dataclass(frozen=True)
class HeadRole:
    """What one head of one layer mostly looks at, from its α over a text.

    Attributes:
        layer, head: which head.
        kind: "previous" (the key just before the query), "self" (the query's own position),
            "first" (position 0), or "spread" (no single place gets ``ROLE_SHARE`` on average).
        share: the average weight on that place over the rows that can choose (rows 1..T-1), or
            for "spread" the average of each row's largest weight.
    """

    layer: int
    head: int
    kind: str
    share: float


def head_roles(alphas: torch.Tensor) -> list[HeadRole]:
    """Name what each head looks at from its α, (L, h, T, T) with the causal mask.

    For each head the average weight of rows 1..T-1 (row 0 can only look at itself) on the
    previous key (i − 1), the query itself (i) and the first key (0); the largest of these names
    the head when it reaches :data:`ROLE_SHARE`. A text of one character gives "self" with 1.0.
    """
    L, h, T, _ = alphas.shape
    roles = []
    for layer in range(L):
        for head in range(h):
            a = alphas[layer, head].double()  # (T, T)
            if T < 2:
                roles.append(HeadRole(layer, head, "self", 1.0))
                continue
            rows = torch.arange(1, T)
            shares = {
                "previous": float(a[rows, rows - 1].mean()),
                "self": float(a[rows, rows].mean()),
                "first": float(a[rows, 0].mean()) if T > 2 else 0.0,
            }
            kind = max(shares, key=shares.get)
            if shares[kind] >= ROLE_SHARE:
                roles.append(HeadRole(layer, head, kind, shares[kind]))
            else:
                roles.append(HeadRole(layer, head, "spread", float(a[rows].amax(dim=-1).mean())))
    return roles


def previous_shares(alphas: torch.Tensor, layer: int) -> list[float]:
    """Each head's average weight on the previous character in ``layer``: α (L, h, T, T), rows
    1..T-1 (row 0 has none before it); h zeros for a text of one character."""
    T = alphas.shape[-1]
    if T < 2:
        return [0.0] * alphas.shape[1]
    rows = torch.arange(1, T)
    return alphas[layer][:, rows, rows - 1].double().mean(dim=-1).tolist()  # (h,)


def looks_back(alphas: torch.Tensor, layer: int, changed: Sequence[int] | None = None) -> tuple[int, float]:
    """The head of ``layer`` that looks at the previous character, and its average weight there.

    α (L, h, T, T) with the causal mask, rows 1..T-1 (row 0 has no previous character). Of the
    heads that put at least :data:`ROLE_SHARE` there, the one whose switching off changes the
    most predictions (``changed``: a count per head of ``layer``, as
    :func:`tinygpt.explanations.explain.head_importance` gives) and then the largest weight; with no such
    head, the largest weight. Head 0 with weight 0.0 for a text of one character. The head a
    lesson opens on: its α shows "look one character back", and the model needs it.
    """
    if alphas.shape[-1] < 2:
        return 0, 0.0
    shares, h = previous_shares(alphas, layer), alphas.shape[1]
    needed = list(changed) if changed is not None else [0] * h
    looking = [k for k in range(h) if shares[k] >= ROLE_SHARE] or list(range(h))
    head = max(looking, key=lambda k: (needed[k], shares[k]))
    return head, shares[head]


# ---------------------------------------------------------------- what a text asks of attention


def successors(text: str) -> dict[str, Counter[str]]:
    """For each character of ``text`` read as a cycle, how often each character follows it."""
    follow: dict[str, Counter[str]] = {}
    for c, nxt in zip(text, text[1:] + text[:1]):
        follow.setdefault(c, Counter())[nxt] += 1
    return follow


@dataclass(frozen=True)
class Decided:
    """A character of a text with several successors, and how the character before it decides
    which: ``rule`` maps each preceding character to the one that follows (only when every
    preceding character always gives the same successor; else ``rule`` is empty)."""

    char: str
    nexts: tuple[str, ...]
    rule: tuple[tuple[str, str], ...]


def what_attention_decides(text: str) -> list[Decided]:
    """The characters of ``text`` (read as a cycle) that are followed by more than one character,
    in order of first appearance, each with the rule its predecessor gives, if there is one.

    The context example: 爱 is followed by 你, 我, 她, 他, and 我爱→你, 你爱→我, 他爱→她, 她爱→他.
    An empty list means every character has one successor: the current character alone decides
    the next, and no attention is needed.
    """
    n = len(text)
    result = []
    for c, follow in successors(text).items():
        if len(follow) < 2:
            continue
        by_prev: dict[str, set[str]] = {}
        for k in range(n):
            if text[k] == c:
                by_prev.setdefault(text[k - 1], set()).add(text[(k + 1) % n])
        rule = (
            tuple((p, next(iter(s))) for p, s in by_prev.items()) if all(len(s) == 1 for s in by_prev.values()) else ()
        )
        result.append(Decided(c, tuple(follow), rule))
    return result


def suggested_window(text: str, max_len: int) -> int | None:
    """A training window that makes attention matter for ``text``, or None when none can.

    When a character of the text has several successors, windows that start at every character
    (a window shorter than the text) let the same character sit at every position, so neither
    position nor the current character tells what follows: the model must look back. 16
    characters (or the text's length − 1, if shorter), within ``max_len``. None when every
    character has one successor, or the text is too short to have a window of 2.
    """
    if not what_attention_decides(text) or len(text) < 3:
        return None
    return max(2, min(16, len(text) - 1, max_len))


# ---------------------------------------------------------------- does a trained model rely on attention?


@dataclass(frozen=True)
class Reliance:
    """How much a trained model's predictions on its training windows depend on attention.

    Attributes:
        changed: training predictions that change when every head of every layer attends
            uniformly (to every key the mask allows).
        total: the training predictions evaluated (windows × window length).
        windows, all_windows: the windows evaluated and the windows the training used.
    """

    changed: int
    total: int
    windows: int
    all_windows: int


@torch.no_grad()
def attention_reliance(model: GPT, vocab: CharVocab, text: str, window: int, causal_mask: bool = True) -> Reliance:
    """Uniform attention in every layer against the model's own, on the training windows of ``text``.

    At most :data:`MAX_WINDOWS` windows, evenly spread, are evaluated (all of them for short
    texts). ``causal_mask``: the mask the model was trained with (both walks use it).
    Raises what :func:`tinygpt.vocab.training_pairs` raises.
    """
    inputs, _ = training_pairs(vocab, text, window)  # (N, window)
    n = inputs.shape[0]
    rows = torch.linspace(0, n - 1, min(n, MAX_WINDOWS)).round().long().unique()
    L, h = len(model.blocks), model.cfg.n_heads
    own_sw = Switches(causal_mask=causal_mask)
    uniform = Switches(causal_mask=causal_mask, uniform_heads=tuple(range(h)))
    changed = 0
    for r in rows.tolist():
        idx = inputs[r : r + 1]  # (1, window)
        own = walk(model, idx, {k: own_sw for k in range(L)})
        fx = position_effects(model, idx, {k: uniform for k in range(L)}, own)
        changed += fx.n_changed
    return Reliance(changed, len(rows) * window, len(rows), n)
