"""The serving engine behind the pages, free of Streamlit: training jobs, the model shelf, run records.

- :class:`TrainingJob`: one training run in a background thread while the pages keep working. The thread
  only writes the job's fields under its lock; a page polls :meth:`TrainingJob.progress`. Controls act at
  step boundaries (Pause, Resume, Step = one optimizer step, Stop). A process-wide :class:`JobQueue`
  bounds how many jobs hold a training slot at once (the host has 2 cores and each job trains with one
  thread); a waiting job reports its place in line. A paused job keeps its slot (its weights and Adam
  state stay in memory) and stops by itself after ``MAX_PAUSE_SECONDS``.
- :class:`ModelShelf`: finished models, frozen and shared read-only, keyed by the settings that
  determine them (:func:`model_key`): training is deterministic, so the same settings never
  train twice in a process.
- :func:`example_training`: each example's model (``tinygpt.examples.EXAMPLES``; the textbook
  example is the default model, :func:`default_training`), trained once per process in a
  background thread, so no page waits for it unless it needs it.
- One training for equal requests: while a job runs, :func:`start_job` hands every request with
  the same :func:`model_key` that running job (a process-wide registry), so N sessions asking for
  the same settings cause one training and all watch its progress. The job's ``owner`` is the
  session that started it: only it may pause or step the run. Every session waiting for a job
  is one of its ``watchers`` (session tokens: the owner and each follower). A session that stops
  or resets leaves (:meth:`TrainingJob.leave`): the run goes on while anyone else waits for it
  and stops when the last one leaves.
- Limits that hold (every refusal a :class:`JobRefusedError` whose ``key`` is its i18n message):
  memory is checked when a training is requested (:func:`check_memory`), when a model is read from
  the class store and when a queued job gets its slot (:func:`check_start_memory`); the last two count
  the whole estimate of every job with a slot (:func:`start_fits`). The line is bounded per server
  (:data:`MAX_WAITING_JOBS`) and per session (one active job per session token): :class:`QueueFullError`.
  Models on the shelf and running jobs are handed out all the same. :func:`reap_unwatched` cancels a job
  none of whose watchers has had an open session for ``UNWATCHED_GRACE_S`` seconds (the Streamlit side
  calls it every ``tinygpt.ui.train.training_jobs.REAP_SECONDS``).
- :class:`RunRecord`: what a session keeps of its earlier runs, labelled by the settings that
  differ (:func:`run_labels`).

The line and its refusals are in :mod:`tinygpt.training.job_queue`, the shelf in :mod:`tinygpt.training.model_shelf`,
a job's progress and run records in :mod:`tinygpt.training.run_records`; this module re-exports their names.
The Streamlit glue is in ``tinygpt.ui.train.training_jobs`` and ``tinygpt.ui.shared.models``.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.examples import EXAMPLES
from tinygpt.training.job_queue import (
    ACTIVE,
    MAX_CONCURRENT_JOBS,
    MAX_WAITING_JOBS,
    JobQueue,
    JobRefusedError,
    JobStatus,
    MemoryLimitError,
    QueueFullError,
    env_int,
)
from tinygpt.training.model_library import ModelKey
from tinygpt.training.model_shelf import MAX_SHELF_PARAMETERS, ModelShelf, greedy_continuation, model_key
from tinygpt.training.record import ModelRecord, StopReason
from tinygpt.training.run_records import Progress, RunRecord, record_of, run_labels, settings_of
from tinygpt.training.shutdown import exiting, on_exit, track
from tinygpt.training.train import NonFiniteLossError, Trainer, build, release_free_memory, train

__all__ = [
    "ACTIVE",
    "JOB_BASE_MB",
    "JOB_BYTES_PER_PARAMETER",
    "MAX_CONCURRENT_JOBS",
    "MAX_PAUSE_SECONDS",
    "MAX_SHELF_PARAMETERS",
    "MAX_WAITING_JOBS",
    "MEMORY_LIMIT_MB",
    "RATE_WINDOW",
    "START_MARGIN_MB",
    "UNWATCHED_GRACE_S",
    "WARM_UP_NICE",
    "JobQueue",
    "JobRefusedError",
    "JobStatus",
    "MemoryLimitError",
    "ModelShelf",
    "Progress",
    "QueueFullError",
    "RunRecord",
    "Trainer",
    "TrainingJob",
    "active_jobs",
    "check_memory",
    "check_memory_mb",
    "check_start_memory",
    "default_training",
    "example_training",
    "greedy_continuation",
    "job_memory_mb",
    "model_key",
    "process_rss_mb",
    "reap_unwatched",
    "record_of",
    "run_labels",
    "running_job",
    "settings_of",
    "start_fits",
    "start_job",
]

#: A job whose every watcher has had no open session for this long (s) is cancelled.
UNWATCHED_GRACE_S = 20.0
#: A job paused longer than this stops by itself and frees its slot.
MAX_PAUSE_SECONDS = 300.0
#: Steps/s is measured over this many recent steps.
RATE_WINDOW = 20
#: A new training is refused when the server's RSS plus the run's estimate would pass this many MB
#: (10⁶ bytes; env TINYGPT_MEMORY_LIMIT_MB, 0 = no limit). Community Cloud gives an app roughly
#: 0.7–2.7 GB and restarts it beyond its limit; 2000 MB leaves room for the pages' own peaks.
MEMORY_LIMIT_MB = env_int("TINYGPT_MEMORY_LIMIT_MB", 2000)
#: Bytes a training run holds per parameter: weights, gradients and Adam's two moments (float32).
JOB_BYTES_PER_PARAMETER = 16
#: MB a training run holds beyond that (activations, the allocator's slack), whatever its size.
JOB_BASE_MB = 50.0
#: MB kept free beyond the estimates when a job starts or a stored model loads: two of the largest jobs at once
#: (bench.limits) passed the RSS at their admission plus both estimates by up to 142 MB (the pages, each arena's slack).
START_MARGIN_MB = 150.0


def process_rss_mb() -> float | None:
    """This process's resident memory in MB (10⁶ bytes), from /proc; None where there is none."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def job_memory_mb(gpt_cfg: GPTConfig) -> float:
    """What a training run of this model adds to the process, estimated (MB)."""
    return gpt_cfg.n_parameters() * JOB_BYTES_PER_PARAMETER / 1e6 + JOB_BASE_MB


def check_memory_mb(need_mb: float, key: str = "train.memory_full", limit_mb: float | None = None) -> None:
    """Raise :class:`MemoryLimitError` (with i18n ``key``) when the process's RSS plus ``need_mb``
    would pass the limit (``MEMORY_LIMIT_MB`` unless given; 0 = none)."""
    limit = MEMORY_LIMIT_MB if limit_mb is None else limit_mb
    rss = process_rss_mb() if limit else None
    if rss is not None and rss + need_mb > limit:
        raise MemoryLimitError(rss, need_mb, limit, key)


def check_memory(gpt_cfg: GPTConfig, limit_mb: float | None = None) -> None:
    """Raise :class:`MemoryLimitError` when a training of ``gpt_cfg`` would pass the limit
    (``MEMORY_LIMIT_MB`` unless given; 0 = none) now. Checked when a training is requested; the
    job is checked again when its turn comes (:func:`check_start_memory`)."""
    check_memory_mb(job_memory_mb(gpt_cfg), limit_mb=limit_mb)


def start_fits(rss_mb: float, reserved_mb: float, need_mb: float, limit_mb: float, margin_mb: float = 0.0) -> bool:
    """Whether ``rss_mb`` (the process now) + ``reserved_mb`` (the whole estimate of every other job with a
    slot) + ``need_mb`` (this job's or load's estimate) + ``margin_mb`` stays within ``limit_mb`` (all MB;
    a limit of 0: none). A job's estimate covers its publishing: its Adam state and gradients are freed
    before the checkpoint's copies of the weights are made."""
    return not limit_mb or rss_mb + reserved_mb + need_mb + margin_mb <= limit_mb


def _reserved_mb(job: TrainingJob | None = None) -> float:
    """The whole estimate (MB) of every job with a slot other than ``job``; call with ``_running_lock`` held."""
    return sum(job_memory_mb(j.gpt_cfg) for j in _jobs.values() if j is not job and j._has_slot)


def _check_fits(reserved_mb: float, need_mb: float, key: str, limit_mb: float | None = None) -> None:
    """Raise :class:`MemoryLimitError` (i18n ``key``) unless :func:`start_fits` with the RSS now and the margin."""
    limit = MEMORY_LIMIT_MB if limit_mb is None else limit_mb
    rss = process_rss_mb() if limit else None
    if rss is not None and not start_fits(rss, reserved_mb, need_mb, limit, START_MARGIN_MB):
        raise MemoryLimitError(rss + reserved_mb, need_mb + START_MARGIN_MB, limit, key)


def check_start_memory(job: TrainingJob, limit_mb: float | None = None) -> None:
    """Raise :class:`MemoryLimitError` (``train.memory_full_start``) when ``job``, whose slot has just come,
    does not fit (:func:`start_fits`). A running job's whole estimate stays reserved beside the RSS holding
    part of it: its memory grows after its first step (the backward pass's buffers, the checkpoint)."""
    with _running_lock:
        reserved = _reserved_mb(job)
    _check_fits(reserved, job_memory_mb(job.gpt_cfg), "train.memory_full_start", limit_mb)


@dataclass(eq=False)
class TrainingJob:
    """One training run in a background thread.

    ``status``: a :class:`JobStatus` (what ``result`` and ``error`` hold in each). ``losses`` grows step by step;
    read it through :meth:`progress`. ``from_cache``: the settings were trained before, nothing ran.
    """

    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    status: JobStatus = JobStatus.WAITING
    losses: list[float] = field(default_factory=list)
    result: ModelRecord | None = None
    error: Exception | None = None
    from_cache: bool = False
    timed_out: bool = False
    generation: tuple[str, str] = ("", "")
    job_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: Who started the job (a session token; "" for none): the controls are that session's alone.
    owner: str = ""
    #: Sessions waiting for the job (tokens: the owner and every follower); see :meth:`leave`.
    watchers: set[str] = field(default_factory=set)
    #: True when :func:`reap_unwatched` stopped the job because no open session waited for it.
    cancelled: bool = False
    _closed_since: dict[str, float] = field(default_factory=dict)
    _has_slot: bool = False
    _queue: JobQueue | None = None
    _trainer: Trainer | None = None
    _want: str = "run"
    _budget: int = 0
    _stop: bool = False
    _times: deque = field(default_factory=lambda: deque(maxlen=RATE_WINDOW))
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _thread: threading.Thread | None = None

    # ------------------------------------------------------------------ controls (any thread)
    def start(self, queue: JobQueue, models: ModelShelf, paused: bool = False, steps: int = 0) -> None:
        """Start the thread and return at once; ``paused`` starts paused after ``steps`` steps."""
        self._queue = queue
        self._want, self._budget = ("pause", steps) if paused else ("run", 0)
        self._thread = track(
            threading.Thread(target=self._run, args=(queue, models), daemon=True, name=f"train-{self.job_id[:8]}")
        )
        self._thread.start()

    def pause(self) -> None:
        """Pause at the next step boundary."""
        with self._cond:
            self._want = "pause"
            self._cond.notify_all()

    def resume(self) -> None:
        """Continue training."""
        with self._cond:
            self._want, self._budget = "run", 0
            self._times.clear()
            self._cond.notify_all()

    def step_once(self) -> None:
        """While paused: one optimizer step, then paused again."""
        with self._cond:
            self._want = "pause"
            self._budget += 1
            self._cond.notify_all()

    def stop(self) -> None:
        """Stop at the next step boundary (a waiting job leaves the line); keeps the weights reached."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()

    def watch(self, token: str) -> None:
        """Count session ``token`` among those waiting for the job (no-op for "")."""
        if token:
            with self._cond:
                self.watchers.add(token)
                self._closed_since.pop(token, None)

    def followers(self, token: str) -> int:
        """How many sessions other than ``token`` wait for the job."""
        with self._cond:
            return len(self.watchers - {token})

    def leave(self, token: str) -> int:
        """Session ``token`` stops waiting for the job; returns how many others still wait.

        When none is left (and the job has not ended) the run stops at the next step boundary,
        keeping the weights reached; otherwise it goes on for the others.
        """
        with self._cond:
            self.watchers.discard(token)
            self._closed_since.pop(token, None)
            left = len(self.watchers)
        if left == 0 and self.active:
            self.stop()
        return left

    def _reap(self, is_open: Callable[[str], bool], now: float, grace: float) -> bool:
        """Forget watchers whose session has been closed for ``grace`` s; stop the job when none
        is left. True when this call cancelled it. A job nobody ever watched (started outside a
        session) is left alone."""
        with self._cond:
            tokens = set(self.watchers)
        if not tokens or not self.active:
            return False
        states = {token: is_open(token) for token in tokens}  # outside the lock: it may ask the runtime
        with self._cond:
            for token, open_now in states.items():
                if open_now:
                    self._closed_since.pop(token, None)
                elif now - self._closed_since.setdefault(token, now) >= grace:
                    self.watchers.discard(token)
                    self._closed_since.pop(token, None)
            if self.watchers or self._stop:
                return False
            self.cancelled = True
        self.stop()
        return True

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (tests and benchmarks)."""
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def active(self) -> bool:
        """True while waiting, running or paused."""
        return self.status in ACTIVE

    def progress(self) -> Progress:
        """Status, a copy of the losses, steps/s over the last steps, seconds left at that rate, place in line."""
        with self._cond:
            status, losses, times = self.status, list(self.losses), list(self._times)
        rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) >= 2 and times[-1] > times[0] else None
        eta = (self.train_cfg.epochs - len(losses)) / rate if rate and status == JobStatus.RUNNING else None
        place = self._queue.place(self.job_id) if self._queue is not None and status == JobStatus.WAITING else 0
        replay = self._trainer.replay_progress if self._trainer is not None else None
        return Progress(status, losses, self.train_cfg.epochs, rate, eta, place, replay)

    def wait_first_step(self, timeout: float) -> bool:
        """Block up to ``timeout`` s until the job has a loss or is no longer waiting/running; True if so.

        Returns at once for a paused job (it takes no step until told to).
        """
        with self._cond:
            return self._cond.wait_for(
                lambda: bool(self.losses) or self.status not in (JobStatus.WAITING, JobStatus.RUNNING), timeout
            )

    @property
    def diverged(self) -> bool:
        """True for a finished run whose last loss is higher than its first (lr too large, typically)."""
        losses = self.result.losses if self.result is not None else []
        return len(losses) >= 2 and losses[-1] > losses[0]

    def finished_model(self) -> ModelRecord | None:
        """The model to use on every page once the job is done (epochs or early stop), else None.

        A run that diverged is not taken up by itself: the model the student had is kept, and
        the Train page offers the diverged one (``end_message``).
        """
        return self.result if self.status == JobStatus.DONE and not self.diverged else None

    # ------------------------------------------------------------------ the thread
    def _set(self, **fields: object) -> None:
        with self._cond:
            for name, value in fields.items():
                setattr(self, name, value)
            self._cond.notify_all()

    def _run(self, queue: JobQueue, models: ModelShelf) -> None:
        try:
            if not queue.acquire(self.job_id, lambda: self._stop):
                self._set(status=JobStatus.STOPPED)
                return
            self._has_slot = True
            try:
                check_start_memory(self)  # its turn came: does it still fit?
                self._train(models)
            finally:
                self._has_slot = False
                queue.release()
        except Exception as exc:  # reported on the page, never raised into Streamlit
            self._set(error=exc, status=JobStatus.ERROR)
        finally:  # after the shelf has the model: an equal request finds one or the other
            _unregister(self)

    def _wait_for_go(self, record: ModelRecord) -> bool:
        """Block while paused; True to take one more step, False to stop."""
        with self._cond:
            paused_at = time.monotonic()
            while not self._stop and self._want == "pause" and self._budget == 0:
                self.status = JobStatus.PAUSED
                self._cond.wait(1.0)
                if time.monotonic() - paused_at > MAX_PAUSE_SECONDS:
                    self._stop = self.timed_out = True
            if self._stop:
                record.stop_reason = StopReason.STOPPED
                return False
            if self._budget:
                self._budget -= 1
            self.status = JobStatus.RUNNING
            return True

    def _train(self, models: ModelShelf) -> None:
        try:
            self._train_run(models)
        finally:
            self._trainer = None  # drop the Adam state and gradients, then return the memory
            release_free_memory()

    def _train_run(self, models: ModelShelf) -> None:
        record = build(self.text, self.gpt_cfg, self.train_cfg)
        trainer = self._trainer = Trainer(record)
        try:
            while not trainer.done and self._wait_for_go(record):
                loss = trainer.step()
                with self._cond:
                    self.losses.append(loss)
                    self._times.append(time.perf_counter())
                    self._cond.notify_all()
        except NonFiniteLossError as exc:
            trainer.finish()
            self._set(result=record.freeze(), error=exc, generation=greedy_continuation(record), status=JobStatus.ERROR)
            return
        trainer.finish()
        self._trainer = trainer = None  # the Adam state and gradients go back to the system before publishing,
        release_free_memory()  # whose checkpoint bytes would otherwise come on top of them
        if record.stop_reason == StopReason.STOPPED:
            self._set(result=record.freeze(), generation=greedy_continuation(record), status=JobStatus.STOPPED)
            return
        shared = models.put(model_key(self.text, self.gpt_cfg, self.train_cfg), record)
        self._set(result=shared, generation=greedy_continuation(shared), status=JobStatus.DONE)


#: Running jobs by their settings' key: equal requests share the run (see :func:`start_job`).
_running: dict[ModelKey, TrainingJob] = {}
#: Every job started that has not ended, by job id (the limits count them; the reaper visits them).
_jobs: dict[str, TrainingJob] = {}
_running_lock = threading.Lock()
on_exit(lambda: [job.stop() for job in list(_jobs.values())])  # each ends at its next step as the process exits


def _unregister(job: TrainingJob) -> None:
    key = model_key(job.text, job.gpt_cfg, job.train_cfg)
    with _running_lock:
        if _running.get(key) is job:
            del _running[key]
        _jobs.pop(job.job_id, None)


def active_jobs() -> list[TrainingJob]:
    """Every job started in this process that has not ended (waiting, running or paused)."""
    with _running_lock:
        return list(_jobs.values())


def _session_busy(token: str, key: ModelKey | None) -> bool:
    """True when session ``token`` already waits for a job that has not ended and is not stopping,
    other than a shared run of ``key`` (joining that one again changes nothing)."""
    if not token:
        return False
    for job in _jobs.values():
        if token in job.watchers and job.active and not job._stop:
            if _running.get(key) is not job:
                return True
    return False


def reap_unwatched(
    is_open: Callable[[str], bool], now: float | None = None, grace: float | None = None
) -> list[TrainingJob]:
    """Cancel every waiting, running or paused job that no open session waits for.

    Args:
        is_open: whether the session of a watcher token is still connected (the Streamlit side
            asks its runtime; a test passes a fake).
        now: the time (``time.monotonic()`` unless given; tests pass their own clock).
        grace: seconds a watcher's session must have been closed before it is forgotten
            (``UNWATCHED_GRACE_S`` unless given), so a browser that reconnects after a moment keeps its job.
    Returns:
        the jobs this call cancelled (stopped at their next step boundary, ``cancelled`` True).
    """
    now = time.monotonic() if now is None else now
    grace = UNWATCHED_GRACE_S if grace is None else grace
    return [job for job in active_jobs() if job._reap(is_open, now, grace)]


def running_job(key: ModelKey) -> TrainingJob | None:
    """The shared job training these settings now (waiting or running), or None."""
    with _running_lock:
        job = _running.get(key)
        return job if job is not None and job.status in (JobStatus.WAITING, JobStatus.RUNNING) else None


def start_job(
    text: str,
    gpt_cfg: GPTConfig,
    train_cfg: TrainConfig,
    queue: JobQueue,
    models: ModelShelf,
    paused: bool = False,
    steps: int = 0,
    owner: str = "",
    fresh: bool = False,
) -> TrainingJob:
    """A job for the settings, training in ``queue``'s slots and putting its model on ``models``.

    Settings trained before (in any session) return a finished job at once with the shared model
    (``from_cache``), unless ``fresh`` (the student asked to watch it train again). Settings that a job is
    training now (waiting or running, in any session)
    return that same job: one training for equal requests; its ``owner`` stays the session that
    started it (the caller compares it with its own ``owner`` to know whether it may control the
    run) and ``owner`` joins its watchers. Otherwise a thread starts training, owned and watched by
    ``owner``. A job started ``paused`` (to take ``steps`` single steps) is the starter's alone:
    it neither joins nor is joined.

    Raises:
        QueueFullError: ``owner`` already waits for another training (``train.session_busy``), or
        the line of ``queue`` is full (``train.queue_full``).
        MemoryLimitError: a new training, or reading the model from the store, would pass the memory
        limit now; a job admitted here is checked again when its turn comes (refused: ends with this error).
    """
    key = model_key(text, gpt_cfg, train_cfg)
    with _running_lock:  # one check-and-start at a time: two equal requests cannot both start
        # a model read from the store peaks at about 12 bytes a parameter: admitted as its training would be
        load = lambda: _check_fits(_reserved_mb(), job_memory_mb(gpt_cfg), "train.memory_full")  # noqa: E731
        cached = None if fresh else models.get(key, before_load=load)
        if cached is not None:
            job = TrainingJob(text, gpt_cfg, train_cfg, owner=owner)
            job._queue = queue
            job.losses, job.result, job.from_cache = list(cached.losses), cached, True
            job.generation, job.status = greedy_continuation(cached), JobStatus.DONE
            return job
        if _session_busy(owner, None if paused else key):
            raise QueueFullError("train.session_busy")
        if not paused:
            shared = _running.get(key)
            if shared is not None and shared.status in (JobStatus.WAITING, JobStatus.RUNNING):
                shared.watch(owner)
                return shared
        check_memory(gpt_cfg)
        queue.admit()
        job = TrainingJob(text, gpt_cfg, train_cfg, owner=owner)
        job.watch(owner)
        if not paused:
            _running[key] = job
        _jobs[job.job_id] = job
        job.start(queue, models, paused=paused, steps=steps)
        return job


def _train_example(name: str, models: ModelShelf, future: Future[ModelRecord]) -> None:
    """Train an example's model and put it on ``models`` (runs in the warm-up thread)."""
    ex = EXAMPLES[name]
    try:  # the lowest CPU priority (Linux: per thread): a page the browser is drawing meanwhile goes first
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WARM_UP_NICE)
    except (AttributeError, OSError):  # no setpriority (Windows), or not allowed: train as it is
        pass
    key = model_key(ex.text, ex.gpt, ex.train)
    try:
        found = models.get(key)  # shipped with the app, or published by another server
        if found is None:
            trained = train(ex.text, ex.gpt, ex.train, should_stop=exiting)
            if exiting():  # stopped part-way as the process exits: never published
                raise RuntimeError(f"the process exited while the {name} example trained")
            found = models.put(key, trained)
        future.set_result(found)
    except BaseException as exc:  # the pages re-raise it where they wait for the model
        future.set_exception(exc)


#: Niceness of the examples' warm-up threads (19: the lowest priority). On the 2-core host the two
#: threads otherwise take both cores while the browser draws the first page.
WARM_UP_NICE = 19
_examples_lock = threading.Lock()
_example_futures: dict[str, Future[ModelRecord]] = {}


def example_training(name: str, models: ModelShelf) -> Future[ModelRecord]:
    """The Future of the model of ``tinygpt.examples.EXAMPLES[name]``, trained once per process.

    The first call for a name starts training it in a background thread, which puts it on
    ``models`` under its :func:`model_key`; later calls return the same Future (their ``models``
    is not used). A model shipped with the app or published in the class store
    (``tinygpt.training.model_library``) is taken as it is; otherwise the thread trains it with
    ``tinygpt.training.train.TRAIN_THREADS`` (one core), so a page renders on the other core meanwhile
    instead of waiting for the model. A training error is raised by ``result()``; KeyError for an
    unknown name.
    """
    if name not in EXAMPLES:
        raise KeyError(name)
    with _examples_lock:
        if name not in _example_futures:
            future: Future[ModelRecord] = Future()
            future.set_running_or_notify_cancel()
            track(
                threading.Thread(
                    target=_train_example, args=(name, models, future), name=f"tinygpt-example-{name}", daemon=True
                )
            ).start()
            _example_futures[name] = future
        return _example_futures[name]


def default_training(models: ModelShelf) -> Future[ModelRecord]:
    """The Future of the default model: the textbook example, the seed settings (你好世界,
    512/8/6/2048, Adam 1e-4, early stop); :func:`example_training` of ``"textbook"``."""
    return example_training("textbook", models)
