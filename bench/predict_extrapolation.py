"""How far the seed model continues 你 as 你好世界… beyond the 4 positions it was trained on.

The seed trains one sequence of 4 characters (positions 0..3). Generation past that either feeds
the whole context (positions 4, 5, … never trained) or a sliding window of the last 4 characters
(positions stay trained, but the windows 好世界你, 世界你好, … were never seen at position 0).
For training seeds 0, 1, 2 this prints the greedy continuation of 你 both ways and how many
characters (prefix included) agree with 你好世界 repeated before the first departure.

Run: python -m bench.predict_extrapolation [n_new]   (trains the seed config 3 times)
"""

from __future__ import annotations

import sys
import time

from tinygpt.config import DEFAULT_GPT, DEFAULT_TRAIN, SEED_TEXT
from tinygpt.generate import MAX_NEW_CHARS, generate
from tinygpt.training.train import train


def agreeing_prefix(text: str, pattern: str = SEED_TEXT) -> int:
    """Number of leading characters of ``text`` equal to ``pattern`` repeated."""
    for i, c in enumerate(text):
        if c != pattern[i % len(pattern)]:
            return i
    return len(text)


def main(n_new: int = 40) -> None:
    n_new = min(n_new, MAX_NEW_CHARS)
    print(f"greedy continuation of 你 by {n_new} characters; agree = leading characters equal to 你好世界 repeated")
    summary = {"whole context": 0, "window 4": 0}
    for seed in (0, 1, 2):
        t0 = time.perf_counter()
        record = train(SEED_TEXT, DEFAULT_GPT, DEFAULT_TRAIN.__class__(**{**DEFAULT_TRAIN.to_dict(), "seed": seed}))
        secs = time.perf_counter() - t0
        print(f"seed {seed}: trained {len(record.losses)} steps, final loss {record.losses[-1]:.2e}, {secs:.1f} s")
        for name, context_len in (("whole context", None), ("window 4", 4)):
            steps = generate(
                record.model, record.vocab, "你", n_new, trained_len=record.window, context_len=context_len
            )
            text = "你" + "".join(s.chosen for s in steps)
            agree = agreeing_prefix(text)
            summary[name] += agree == len(text)
            print(f"  {name:13s} {text}  agree {agree}/{len(text)}")
    for name, ok in summary.items():
        print(f"{name}: 你好世界 repeated all the way on {ok} of 3 seeds")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
