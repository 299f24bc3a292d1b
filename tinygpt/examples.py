"""Named training runs: the textbook's 你好世界 and a text whose predictions need attention.

**textbook** is the seed program (textbook section 22.2.2): 你好世界 → 好世界你. Each character
has exactly one successor (你→好, 好→世, 世→界, 界→你), so the current character alone decides
the next one. The trained model never needs to look at earlier positions: switching the causal
mask off, changing the softmax temperature or making attention uniform changes no prediction.

**context** is 我爱你，你爱我。他爱她，她爱他。 ("I love you, you love me. He loves her, she loves
him."). Every character recurs with different successors, and only the character *before* it
tells which one comes next:

- 爱 is followed by 你 after 我 (我爱你), by 我 after 你 (你爱我), by 她 after 他 (他爱她) and by
  他 after 她 (她爱他);
- 你 is followed by ， after 爱 (爱你，) and by 爱 after ， (，你爱); 她 likewise (爱她，, ，她爱);
- ， repeats the person before it (你，你, 她，她); 我 and 他 are followed by 爱 or by 。;
  。 is followed by 他 after 我 (我。他) and by 我 after 他 (the text read as a cycle: 他。我).

The model trains on every 15-character window of the text read as a cycle (``window=15``: 16
windows, each starting at another character), so a character appears at every position and its
position does not tell the successor either. A window longer than a few characters holds all
of 我/你/他/她, so even the set of characters read so far does not decide it: the model has to
attend to the previous position. The only positions it cannot get right are the first of a
window (nothing before it to look at), which caps the accuracy at 231/240 = 96.25 %, what a
well-trained model reaches. ``python -m bench.experiments`` prints, for every switch and
layer, how many predictions change (figures in the README, "The context example").
"""

from __future__ import annotations

from dataclasses import dataclass

from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.vocab import vocab_size_of


@dataclass(frozen=True)
class Example:
    """A training text with the configuration that trains on it.

    Attributes:
        name: the key in :data:`EXAMPLES` (``python -m tinygpt --example NAME``).
        text: the training text.
        gpt: the architecture (``vocab_size`` is the number of distinct characters of ``text``).
        train: the training run (learning rate, epochs, seed, early stop, window).
    """

    name: str
    text: str
    gpt: GPTConfig
    train: TrainConfig

    @property
    def window(self) -> int:
        """Characters per training sequence (``ModelRecord.window`` of the trained model)."""
        return self.train.window_for(len(self.text), self.gpt.max_len)

    @property
    def display(self) -> str:
        """The first training window: what ``python -m tinygpt`` prints and the training snapshots show."""
        return self.text[: self.window]


CONTEXT_TEXT = "我爱你，你爱我。他爱她，她爱他。"

EXAMPLES: dict[str, Example] = {
    "textbook": Example("textbook", SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN),
    "context": Example(
        "context",
        CONTEXT_TEXT,
        GPTConfig(vocab_size=vocab_size_of(CONTEXT_TEXT), max_len=15, d_model=32, n_heads=2, n_layers=2, d_ff=128),
        # The loss cannot fall to 0 (a window's first position has nothing before it to look
        # at), so early stop is off and the run takes all its epochs.
        TrainConfig(lr=2e-2, epochs=150, seed=0, early_stop_loss=0.0, window=15),
    ),
}
