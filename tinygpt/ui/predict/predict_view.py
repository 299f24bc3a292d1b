"""The Predict page's state and cached computations.

State: the widgets' defaults (from the page's table, ``tinygpt.ui.views.predict_table``, put in the
session before the widgets; the widgets keep their values with ``persist_state="session"``) and
what a change of model does (the prefix stays only if the new model can read it).

Computations: the next-character distributions and the generation, shared by every session
(read-only results); the cache knows a model by its ``uid``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st
import torch

from tinygpt.generate import MAX_NEW_CHARS, DecodeConfig, GenerationStep, generate, next_char_probs
from tinygpt.training.record import ModelRecord
from tinygpt.ui.frame.controls import default_of, put_defaults
from tinygpt.ui.frame.model_session import model_session
from tinygpt.ui.predict.predict_wait import ExampleSketch, sketch_uid
from tinygpt.ui.views.predict_table import P_CONTEXT_LEN, P_PREFIX, P_STEP, PREDICT


def defaults(record: ModelRecord | ExampleSketch) -> None:
    """Give every control of the page its default once (the session keeps what the student set)."""
    put_defaults(PREDICT, record)
    ss = st.session_state
    ss[P_CONTEXT_LEN] = min(ss[P_CONTEXT_LEN], record.gpt_cfg.max_len)  # kept from a longer model


def follow_model(record: ModelRecord | ExampleSketch, choice: str) -> None:
    """Another model than on the page's last run keeps the prefix only if it can read it (else its
    own text), and its generation starts at step 1. ``record`` may be the sketch of the chosen
    example (``choice``) while its model loads; the model that follows it is the same one."""
    ss = st.session_state
    session = model_session()
    last, session.predict_uid = session.predict_uid, record.uid
    if last == sketch_uid(choice):  # the page was drawn from the example's sketch: this is its model
        last = record.uid
    if last is not None and last != record.uid:
        ss[P_STEP] = 1
        if record.vocab.unknown(ss.get(P_PREFIX, "")) or not ss.get(P_PREFIX):
            ss[P_PREFIX] = default_of(PREDICT, P_PREFIX, record)
    defaults(record)


_BY_UID = {ModelRecord: lambda record: record.uid}


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=_BY_UID)
def cached_probs(record: ModelRecord, text: str) -> torch.Tensor:
    """next_char_probs of ``text`` (T ≤ max_len): (T, V), cached per model and text."""
    return next_char_probs(record.model, record.vocab, text)


class RememberedForward:
    """A model whose forward pass remembers its output per input (at most ``max_floats`` numbers in
    all, 8 MB by default; the least recently used dropped): ``model(ids)`` for ids (1, T) gives
    the model's own (1, T, V) logits.

    Generation feeds the same contexts again when only the decoding changes: the logits of a
    context do not depend on τ, top-k or the seed, and a trained model often chooses the same
    characters at a neighbouring τ. The outputs are shared: callers must not change them in place.
    """

    def __init__(self, model: torch.nn.Module, max_floats: int = 2_000_000) -> None:
        self.model, self.cfg, self.max_floats = model, model.cfg, max_floats
        self._outputs: OrderedDict[tuple[int, ...], torch.Tensor] = OrderedDict()
        self._floats = 0
        self._lock = threading.Lock()

    def __call__(self, ids: torch.Tensor) -> torch.Tensor:
        key = tuple(ids.reshape(-1).tolist()) if ids.shape[0] == 1 else None
        with self._lock:
            out = self._outputs.get(key) if key is not None else None
            if out is not None:
                self._outputs.move_to_end(key)
                return out
        with torch.no_grad():
            out = self.model(ids)
        if key is not None and out.numel() <= self.max_floats:
            with self._lock:
                if key not in self._outputs:
                    self._outputs[key] = out
                    self._floats += out.numel()
                while self._floats > self.max_floats:
                    self._floats -= self._outputs.popitem(last=False)[1].numel()
        return out


class GenerationRuns:
    """The longest generation made so far for each prefix and decoding setting of one model.

    A run's first k steps do not depend on how many characters were asked for, so a shorter
    request is a prefix of a longer run and a longer one continues it from the kept sampling
    generator (:func:`tinygpt.generate.generate`'s ``generator``): moving the length slider costs
    at most the new characters' forward passes, not the whole run's. The forward passes are
    remembered per context (:class:`RememberedForward`), so a new τ, top-k or seed runs the
    model only on contexts no earlier run fed. At most ``max_runs`` runs
    are kept (least recently used dropped). Safe to share between sessions' threads.
    """

    def __init__(self, record: ModelRecord, max_runs: int = 64) -> None:
        self.record, self.max_runs = record, max_runs
        self.model = RememberedForward(record.model)
        self._runs: OrderedDict[tuple, tuple[list[GenerationStep], torch.Generator]] = OrderedDict()
        self._lock = threading.Lock()

    def steps(self, prefix: str, n_new: int, decode: DecodeConfig, context_len: int) -> list[GenerationStep]:
        """``generate(model, vocab, prefix, n_new, decode, window, context_len)`` of this model: the
        same steps, computed once. Raises what :func:`~tinygpt.generate.generate` raises."""
        if not 0 <= n_new <= MAX_NEW_CHARS:  # a kept run may already be longer: check the request itself
            raise ValueError(f"n_new={n_new} must be from 0 to {MAX_NEW_CHARS}")
        key = (prefix, decode, context_len)
        with self._lock:
            have, gen = self._runs.get(key, ([], None))
            if key in self._runs:
                self._runs.move_to_end(key)
        if len(have) >= n_new:
            return have[:n_new]
        state = (
            torch.Generator().manual_seed(decode.seed) if gen is None else torch.Generator().set_state(gen.get_state())
        )
        text = prefix + "".join(step.chosen for step in have)
        more = generate(
            self.model,
            self.record.vocab,
            text,
            n_new - len(have),
            decode,
            self.record.window,
            context_len,
            generator=state,
        )
        run = have + more
        with self._lock:
            if len(run) > len(self._runs.get(key, ([], None))[0]):
                self._runs[key] = (run, state)
                self._runs.move_to_end(key)
            while len(self._runs) > self.max_runs:
                self._runs.popitem(last=False)
        return run


@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=_BY_UID)
def generation_runs(record: ModelRecord) -> GenerationRuns:
    """The model's :class:`GenerationRuns`, shared by every session."""
    return GenerationRuns(record)


def cached_generate(
    record: ModelRecord,
    prefix: str,
    n_new: int,
    temperature: float,
    top_k: int,
    seed: int,
    context_len: int,
    top_p: float = 1.0,
) -> list[GenerationStep]:
    """generate() for these settings (temperature τ, top-k, seed, context length in characters,
    top-p), cached per model: a shorter or longer request of the same run reuses its steps."""
    return generation_runs(record).steps(prefix, n_new, DecodeConfig(temperature, top_k, seed, top_p), context_len)
