"""The class period: what the teacher leads and the class's votes, as plain functions (no Streamlit).

- :class:`ClassState`: the class's current state as the teacher's view writes it (the page and the
  model students see, each page's view as its URL text, the teacher's tab that leads, which
  controls they may use, whether they follow, the open question, its round and whether its answers
  are revealed), with
  :meth:`ClassState.to_json` and :func:`state_from_json` (which reads anything, keeping only valid
  fields: a state written by another version of the app never breaks a student's page).
- :func:`write_state`, :func:`read_state`: the state in the class store
  (``tinygpt.classroom.store.Store.write_class_state``, which checks the teacher's key).
- :func:`write_led_state`, :func:`hold_lead`: one leading tab: a tab writes only while it leads, the
  leading tab's heartbeat is the stored state's ``updated_at``, and a tab takes the lead by itself from a
  leader silent longer than :data:`LEAD_EXPIRES_S` (a reloaded page is a new tab).
- :func:`close_period`, :func:`reopen_period`: close a class and end its period (students stop
  following, the open question closes, their pages say the class is closed), or open it again.
- :func:`view_query`: the link to the view students see, for the teacher's own tab.
- :func:`question_data`, :func:`question_from_data`: a :class:`tinygpt.explanations.exercises.Question` as the
  state carries it to every student, and back.
- :func:`tally`, :func:`count_votes`: a question's votes as aggregates only (how many answered
  per round, how many rightly, the spread, how many changed to or away from the right answer):
  never a token or a nickname, so the projector's page, which holds no key, can show them.
- :func:`vote_id`: a vote's own question id, apart from the same question's exercise and from
  an earlier vote on it, so round 1 holds only the answers given after the vote opened.
- :func:`votes_of`: one student's own votes on a question (a reloaded page shows them).
- :func:`suggest_discussion`: peer instruction's rule (Mazur; Crouch & Mazur 2001): when 30–70 %
  answered rightly, the class discusses with a neighbour and answers again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from urllib.parse import parse_qsl

from tinygpt.attention import STEP_IDS
from tinygpt.classroom.class_links import MODEL_ID_PARAM, NOT_VIEW, ascii_query
from tinygpt.classroom.store import Store, StoredState
from tinygpt.classroom.tally import Tally, count_votes
from tinygpt.config import ConfigError
from tinygpt.explanations.answers import question_id, question_record
from tinygpt.explanations.exercises import Choice, Question, QuestionKind
from tinygpt.training.links import decode_train

#: The pages a teacher can lead students to (URL paths).
LED_PAGES: tuple[str, ...] = ("attention", "predict", "theory")
#: The models a teacher can lead with: the examples every server trains the same way, and
#: :data:`OWN`, the teacher's own model named by its ``train=`` settings (``tinygpt.training.links``).
LED_MODELS: tuple[str, ...] = ("context", "textbook")
OWN = "own"
#: The Attention page's step choices: the input, then the nine steps (``tinygpt.attention.STEP_IDS``).
LED_STEPS: tuple[str, ...] = ("input", *STEP_IDS)
MAX_TEXT = 200
MAX_OPEN = 64
#: The longest view text a state keeps per page (a view is a page's URL rows: a text and a few numbers).
MAX_VIEW = 2000
#: The view a class opens on before its teacher sets one: the Attention page at softmax.
START_VIEWS: Mapping[str, str] = {"attention": "step=softmax"}
#: The fields of states written before views were stored whole; :func:`state_from_json` reads them into views.
OLD_VIEW_FIELDS = ("step", "text", "mask", "uniform", "tau")
#: How many revealed votes a state remembers (a period asks far fewer).
MAX_SHOWN = 200
#: Where a teacher's concept check is (``ClassState.check``), in the order a period goes through them.
CHECK_PHASES: tuple[str, ...] = ("pre", "lesson", "post", "done")
#: The prefix of a vote's question id (:func:`vote_id`).
VOTE = "vote"
#: The rounds of a vote: 1, then 2 after "discuss with your neighbour".
ROUNDS: tuple[int, ...] = (1, 2)
#: Seconds without a sign of life from the leading teacher tab (a write, or the heartbeat it sends every few
#: seconds while it is open: ``tinygpt.ui.teacher.lead_view.WATCH_SECONDS``) after which another teacher tab
#: takes the lead by itself. A reloaded page or a reconnected browser is a new tab, and its teacher should not
#: have to take the lead from a tab that is gone; three missed heartbeats, so that a slow server or a busy
#: browser does not lose the lead to a second tab while it is still open.
LEAD_EXPIRES_S = 10.0
#: What :func:`hold_lead` found: this tab leads, it took the lead of a silent tab, another tab leads.
LEADS, TOOK, OTHER = "leads", "took", "other"
#: Peer instruction's band: between these shares of right answers the class discusses and votes again.
DISCUSS_LOW, DISCUSS_HIGH = 0.3, 0.7


@dataclass(frozen=True)
class ClassState:
    """The class's current state (what the teacher leads).

    Attributes:
        page: the page students see (one of :data:`LED_PAGES`).
        model: ``context``, ``textbook`` or :data:`OWN` (the teacher's own model).
        train: with ``model == OWN``, the model's settings as a ``train=`` link carries them
            (``tinygpt.training.links.encode_train``); "" otherwise.
        model_id: the identity of the model the views were made with (``tinygpt.ui.choice.led_model``);
            "" when not known. A page whose model has another identity says the model changed.
        views: page -> its view as the page's URL text (``step=softmax&mask=0&layer=0&head=1``): the
            rows of the page's table read and write it (``tinygpt.ui.frame.controls.read_view``).
        leader: the id of the teacher's tab that leads; another tab of the teacher writes nothing
            until it takes the lead.
        successor: the id of the waiting tab the teacher used last (its page ran while another tab
            led, e.g. the leading page reloaded): it takes the lead of a silent leader first
            (:func:`hold_lead`); "" when none waits.
        open_controls: widget keys students may use while they follow (``tinygpt.ui.views.lesson``).
        follow: students follow the teacher (their other controls are locked) or explore.
        question: the open question (:func:`question_data`), or None.
        question_id: the vote's id (:func:`vote_id`), "" without a question.
        round: the round students answer now (1 or 2; 0 without a question).
        revealed: the answers and the model's own numbers are shown to everyone.
        closed: the teacher closed the class (:func:`close_period`): nobody follows, nothing is asked.
        shown: the vote ids (:func:`vote_id`) whose answers the teacher revealed, oldest first (at most
            :data:`MAX_SHOWN`): only these tell a student whether a vote was right (:meth:`verdict_shown`).
        check: where the teacher's concept check is (:data:`CHECK_PHASES`): "pre" (the check before the
            lesson is open: a student who joins takes it), "lesson" (it is over), "post" (the check
            after the lesson is open: every student takes it), "done" (both over); "" before the
            teacher starts one (each student takes it at her own pace).
        version: how many times the teacher wrote the state (each write adds 1).
    """

    page: str = "attention"
    model: str = "context"
    train: str = ""
    model_id: str = ""
    views: Mapping[str, str] = field(default_factory=lambda: dict(START_VIEWS))
    leader: str = ""
    successor: str = ""
    open_controls: tuple[str, ...] = ()
    follow: bool = False
    question: dict | None = None
    question_id: str = ""
    round: int = 0
    revealed: bool = False
    closed: bool = False
    shown: tuple[str, ...] = ()
    check: str = ""
    version: int = 0

    def to_json(self) -> str:
        """The state as JSON text (what the store keeps)."""
        data = asdict(self)
        data["open_controls"] = list(self.open_controls)
        data["views"] = dict(self.views)
        data["shown"] = list(self.shown)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    def view(self, page: str) -> str:
        """The view of ``page`` as URL text ("" when the teacher set none: the page's defaults)."""
        return self.views.get(page, "")

    def with_view(self, page: str, text: str) -> ClassState:
        """The state with ``text`` as the view of ``page``."""
        return replace(self, views={**self.views, page: text[:MAX_VIEW]})

    def with_question(self, question: Question) -> ClassState:
        """The state with ``question`` open in round 1, not revealed, under a vote id of its own
        (:func:`vote_id` of this state's version): round 1 starts empty."""
        return replace(
            self,
            question=question_data(question),
            question_id=vote_id(question, self.version),
            round=1,
            revealed=False,
        )

    def verdict_shown(self, question_id: str) -> bool:
        """Whether a student may be told if her vote on ``question_id`` was right: the teacher revealed
        it (now, or earlier in the period). An exercise's answer (not a vote) is always shown."""
        if not is_vote(question_id):
            return True
        return question_id in self.shown or (self.revealed and question_id == self.question_id)

    def all_shown(self) -> frozenset[str]:
        """The vote ids revealed so far, the open one included once revealed."""
        now = (self.question_id,) if self.revealed and self.question_id else ()
        return frozenset((*self.shown, *now))

    def without_question(self) -> ClassState:
        """The state with no open question."""
        return replace(self, question=None, question_id="", round=0, revealed=False)


def _choice(raw: object, options: Iterable[str], default: str) -> str:
    return raw if isinstance(raw, str) and raw in options else default


def starting_state(lesson: str) -> ClassState:
    """The state a class starts from before its teacher writes one: the view and the model its
    lesson opens on (``lesson`` is the class's lesson query string, e.g. ``step=scores&model=textbook``):
    every led page's view is the lesson's view (each page reads its own rows of it); the defaults of
    :class:`ClassState` where the lesson names nothing a class leads."""
    query = dict(parse_qsl(lesson, keep_blank_values=True))
    start = ClassState()
    model, train = _model(query.get("model"), query.get("train"), start.model)
    view = ascii_query((k, v) for k, v in query.items() if k not in NOT_VIEW)
    views = {page: view for page in LED_PAGES} if view else start.views
    return replace(start, model=model, train=train, model_id=str(query.get(MODEL_ID_PARAM) or "")[:64], views=views)


def state_from_json(raw: str | None) -> ClassState:
    """The state ``raw`` describes; every missing or invalid field takes its default (never raises)."""
    try:
        data = json.loads(raw or "{}")
    except (ValueError, TypeError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    d = ClassState()
    opened = data.get("open_controls")
    question = data.get("question")
    question_ok = isinstance(question, dict) and _valid_question(question)
    rnd = data.get("round")
    version = data.get("version")
    model, train = _model(data.get("model"), data.get("train"), d.model)
    views = data.get("views")
    if isinstance(views, dict):
        views = {p: v[:MAX_VIEW] for p, v in views.items() if p in LED_PAGES and isinstance(v, str)}
    elif any(name in data for name in OLD_VIEW_FIELDS):
        views = _old_views(data)
    else:
        views = d.views
    model_id, leader, successor = data.get("model_id"), data.get("leader"), data.get("successor")
    return ClassState(
        page=_choice(data.get("page"), LED_PAGES, d.page),
        model=model,
        train=train,
        model_id=model_id[:64] if isinstance(model_id, str) else "",
        views=views,
        leader=leader[:64] if isinstance(leader, str) else "",
        successor=successor[:64] if isinstance(successor, str) else "",
        open_controls=tuple(k for k in opened if isinstance(k, str))[:MAX_OPEN] if isinstance(opened, list) else (),
        follow=data.get("follow") is True,
        question=question if question_ok else None,
        question_id=str(data.get("question_id") or "")[:64] if question_ok else "",
        round=rnd if question_ok and rnd in ROUNDS else 0,
        revealed=question_ok and data.get("revealed") is True,
        closed=data.get("closed") is True,
        shown=_shown(data.get("shown")),
        check=_choice(data.get("check"), CHECK_PHASES, d.check),
        version=version if isinstance(version, int) and not isinstance(version, bool) and version >= 0 else 0,
    )


def _old_views(data: Mapping) -> dict[str, str]:
    """The views a state of per-switch fields (``step``, ``text``, ``mask``, ``uniform``, ``tau``)
    describes, as URL text; the pages' rows read (and refuse) the values as a link's."""
    attention: list[tuple[str, str]] = []
    step, text, tau = data.get("step"), data.get("text"), data.get("tau")
    attention.append(("step", step if isinstance(step, str) else "softmax"))  # a state always had its step
    if isinstance(data.get("mask"), bool):
        attention.append(("mask", "1" if data["mask"] else "0"))
    if data.get("uniform") is True:
        attention.append(("uniform", "layer"))
    if isinstance(tau, (int, float)) and not isinstance(tau, bool):
        attention.append(("tau", f"{tau:g}"))
    text = text[:MAX_TEXT] if isinstance(text, str) else ""
    if text:
        attention.append(("text", text))
    views = {"attention": ascii_query(attention)}
    if text:
        views["predict"] = ascii_query([("prefix", text)])
    return views


def _shown(raw: object) -> tuple[str, ...]:
    """The revealed vote ids of a stored state: strings that name a vote, the latest :data:`MAX_SHOWN`."""
    if not isinstance(raw, list):
        return ()
    return tuple(q[:64] for q in raw if isinstance(q, str) and is_vote(q))[-MAX_SHOWN:]


def _model(model: object, train: object, default: str) -> tuple[str, str]:
    """(model, train) of a stored state: an own model only with settings ``decode_train`` accepts."""
    if model == OWN:
        try:
            decode_train(train if isinstance(train, str) else "")
        except ConfigError:
            return default, ""
        return OWN, str(train)
    return _choice(model, LED_MODELS, default), ""


def view_query(state: ClassState, lang: str) -> list[tuple[str, str]]:
    """The query of a link to the view students see (the page's own parameters, no class, no key):
    the teacher opens it in another tab, or on the projector, to show what the class looks at."""
    params: list[tuple[str, str]] = [("model", state.model)]
    if state.model == OWN:
        params.append(("train", state.train))
    view = parse_qsl(state.view(state.page), keep_blank_values=True)
    return params + [(k, v) for k, v in view if k not in NOT_VIEW] + [("lang", lang)]


# ---------------------------------------------------------------- the question


def question_data(question: Question) -> dict:
    """What a state keeps of ``question``: :func:`tinygpt.classroom.class_links.question_record` and its reason."""
    return question_record(question) | {
        "reason_key": question.reason_key,
        "reason_fields": [[name, value] for name, value in question.reason_fields],
    }


def _valid_question(data: Mapping) -> bool:
    try:
        question_from_data(data)
    except (KeyError, TypeError, ValueError):
        return False
    return True


def question_from_data(data: Mapping) -> Question:
    """The question :func:`question_data` described. Raises KeyError, TypeError or ValueError for
    data that does not describe one."""
    choices = tuple(Choice(str(i), str(text), str(key)) for i, text, key in data["choices"])
    if not choices:
        raise ValueError("a question needs choices")
    return Question(
        kind=QuestionKind(data["kind"]),
        prompt_key=str(data["prompt_key"]),
        prompt_fields=tuple((str(n), v) for n, v in data["prompt_fields"]),
        choices=choices,
        answers=frozenset(str(a) for a in data["answers"]),
        reason_key=str(data["reason_key"]),
        reason_fields=tuple((str(n), v) for n, v in data["reason_fields"]),
        multiple=bool(data["multiple"]),
    )


# ---------------------------------------------------------------- the state in the store


def _merged(state: ClassState, version: int, stored: StoredState | None) -> ClassState:
    """``state`` as version ``version``, with the revealed votes of the ``stored`` state and its own
    (a revealed vote stays revealed whichever tab writes next)."""
    kept = () if stored is None else state_from_json(stored.text).shown
    shown = tuple(dict.fromkeys((*kept, *state.shown, *sorted(state.all_shown() - set(state.shown)))))
    return replace(state, version=version, shown=shown[-MAX_SHOWN:])


def write_state(store: Store, code: str, key: str, state: ClassState) -> ClassState:
    """Keep ``state`` as class ``code``'s current state; returns it with its new version (the
    stored one plus 1) and the revealed votes of the stored state and of ``state`` (:func:`_merged`).
    Raises ClassError for an unknown class or a wrong key, StoreError when the store cannot be reached."""
    written: list[ClassState] = []

    def text_of(version: int, stored: StoredState | None, now: float) -> str:
        written.append(_merged(state, version, stored))
        return written[-1].to_json()

    store.write_class_state(code, key, text_of)
    return written[-1]


def _may_lead(stored: ClassState, seen_at: float, tab: str, now: float) -> bool:
    """Whether ``tab`` may write: it is the leader, none leads, or the leader is silent: longer than
    :data:`LEAD_EXPIRES_S` for the successor (or any tab when none is named), twice as long for any
    other tab (the successor's page may have been closed too)."""
    silent = now - seen_at
    if stored.leader in ("", tab) or silent > 2 * LEAD_EXPIRES_S:
        return True
    return silent > LEAD_EXPIRES_S and stored.successor in ("", tab)


def write_led_state(
    store: Store, code: str, key: str, state: ClassState, tab: str, take: bool = False
) -> ClassState | None:
    """Keep ``state`` with tab ``tab`` as its leader while ``tab`` may lead: the stored leader is ``tab`` or none,
    or has been silent longer than :data:`LEAD_EXPIRES_S`, or ``take`` (the teacher takes the lead in this tab).
    Returns the written state (the stored version plus 1, revealed votes kept as :func:`write_state` keeps
    them), or None when another tab leads or wrote in the same instant: nothing is written, so two tabs
    never both write. Raises as :func:`write_state`."""
    written: list[ClassState] = []

    def text_of(version: int, stored: StoredState | None, now: float) -> str | None:
        if stored is not None and not take and not _may_lead(state_from_json(stored.text), stored.updated_at, tab, now):
            return None
        written.append(_merged(replace(state, leader=tab, successor=_successor(stored, tab)), version, stored))
        return written[-1].to_json()

    return written[-1] if store.write_class_state(code, key, text_of, if_unchanged=True) is not None else None


def _successor(stored: StoredState | None, leader: str) -> str:
    """The stored state's successor while it is not ``leader`` (a tab that leads no longer waits)."""
    successor = "" if stored is None else state_from_json(stored.text).successor
    return "" if successor == leader else successor


def hold_lead(store: Store, code: str, key: str, tab: str, used: bool = False) -> str:
    """Tab ``tab``'s sign of life for class ``code``'s lead: :data:`LEADS` when it leads (its heartbeat,
    the stored state's ``updated_at``, is now) or none leads; :data:`TOOK` when the leader was silent
    long enough (:func:`_may_lead`; ``tab`` leads from now, the view unchanged, the version plus 1);
    :data:`OTHER` when another tab leads and is alive. ``used``: the teacher is using ``tab`` (its page
    ran, not only its timer): a waiting tab then becomes the state's ``successor`` (the version plus 1).
    Raises ClassError for an unknown class or a wrong key, StoreError when the store cannot be reached."""
    seen: list[tuple[str, int]] = []  # (what the stored state says, its version)

    def text_of(version: int, stored: StoredState | None, now: float) -> str | None:
        state = state_from_json(stored.text) if stored is not None else ClassState()
        if state.leader in ("", tab) or stored is None:
            seen.append((LEADS, version - 1))
            return None
        if not _may_lead(state, stored.updated_at, tab, now):
            seen.append((OTHER, version - 1))
            if not used or state.successor == tab:
                return None
            return _merged(replace(state, successor=tab), version, stored).to_json()
        seen.append((TOOK, version - 1))
        return _merged(replace(state, leader=tab, successor=_successor(stored, tab)), version, stored).to_json()

    written = store.write_class_state(code, key, text_of, if_unchanged=True)
    outcome, version = seen[0]
    if outcome == LEADS:
        if version:  # the leader's heartbeat (none before the first state)
            store.touch_class_state(code, key, version)
        return LEADS
    return TOOK if outcome == TOOK and written is not None else OTHER


def votes_blindly_on(state: ClassState, question: Question) -> bool:
    """Whether ``state``'s open vote is on ``question`` (the same question id) and its answer is not
    revealed: anything else that would grade ``question`` then waits too (a vote is blind until revealed)."""
    if state.question is None or state.closed or state.verdict_shown(state.question_id):
        return False
    try:
        return question_id(question_from_data(state.question)) == question_id(question)
    except (KeyError, TypeError, ValueError):  # a state another version wrote: not this question
        return False


def read_state(store: Store, code: str) -> ClassState | None:
    """Class ``code``'s current state, or None before its teacher wrote one. StoreError when the
    store cannot be reached."""
    raw = store.class_state(code)
    return None if raw is None else state_from_json(raw)


def close_period(store: Store, code: str, key: str) -> None:
    """Close class ``code`` (its students' answers are no longer recorded) and end its period: the
    state says the class is closed, students no longer follow and no question stays open (a
    student's page stops showing them within a refresh). Raises ClassError for an unknown class or
    a wrong key, StoreError when the store cannot be reached."""
    store.close_class(code, key)
    stored = read_state(store, code)
    if stored is not None:
        write_state(store, code, key, replace(stored.without_question(), follow=False, closed=True))


def reopen_period(store: Store, code: str, key: str) -> None:
    """Open class ``code`` again; its state no longer says it is closed (the teacher leads and asks
    anew). Raises as :func:`close_period`."""
    store.reopen_class(code, key)
    stored = read_state(store, code)
    if stored is not None and stored.closed:
        write_state(store, code, key, replace(stored, closed=False))


# ---------------------------------------------------------------- the votes


def tally(store: Store, code: str, question_id: str) -> Tally:
    """The votes of class ``code`` on ``question_id``, as aggregates. StoreError when the store
    cannot be reached."""
    answers = store.answers(code, question_id=question_id)
    return count_votes((a.student, a.round, a.answer, a.right) for a in answers)


def vote_id(question: Question, version: int) -> str:
    """The id a class vote on ``question`` records its answers under: ``vote:<version>:<question id>``,
    ``version`` being the class state's version when the teacher opened it. A student's answer to the
    same question as an exercise (its id is ``question_id(question)``) or in an earlier vote on it
    therefore never counts in this vote, and never takes the place of the student's vote in a round."""
    return f"{VOTE}:{int(version)}:{question_id(question)}"


def is_vote(question_id: str) -> bool:
    """Whether ``question_id`` is a class vote's (:func:`vote_id`), not an exercise's."""
    return question_id.startswith(f"{VOTE}:")


def votes_of(store: Store, code: str, question_id: str, student: str) -> dict[int, str]:
    """One student's votes on ``question_id`` in class ``code``: round -> answer (choice ids), so a
    reloaded page shows the votes already cast. StoreError when the store cannot be reached."""
    return {a.round: a.answer for a in store.answers(code, student=student, question_id=question_id)}


def suggest_discussion(share_right: float) -> bool:
    """True when ``share_right`` (0..1) is within peer instruction's band (30–70 %)."""
    return DISCUSS_LOW <= share_right <= DISCUSS_HIGH
