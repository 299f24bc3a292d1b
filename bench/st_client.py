"""A browser-less Streamlit session: a websocket client speaking Streamlit's own protocol.

The client sends the protobuf ``BackMsg`` a browser sends on ``/_stcore/stream`` (``rerun_script``
with a page, a query string and widget states) and reads the ``ForwardMsg`` replies until the
server's ``script_finished``, so the server does all the work it does for a browser. From the
replies it keeps what a browser would: the pages of the navigation (URL path -> script hash), the
query string the script wrote (``page_info_changed``), and the widgets drawn, by their ``key=``
(their element ids end with the key; an expander drawn with ``key=`` too), so a later run can send
a widget's new value under its id. A widget drawn by an ``st.fragment`` carries that fragment's id,
and a change of it reruns only that fragment, as a browser asks: the page's other elements stay as
they are.

Used by ``bench.load`` and ``bench.classroom``.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

RUN_TIMEOUT_S = 300.0
#: Elements whose text a run keeps (``Run.texts``): markdown (captions too), headings, alerts, progress.
_TEXT_FIELDS = {"markdown": "body", "heading": "body", "alert": "body", "progress": "text"}


def stream_url(url: str) -> str:
    """The websocket address of the app at ``url`` (http://host:port)."""
    return url.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"


@dataclass
class Run:
    """What one script run sent back."""

    seconds: float = 0.0
    texts: list[str] = field(default_factory=list)
    successes: list[str] = field(default_factory=list)  # bodies of success alerts
    html: list[str] = field(default_factory=list)  # bodies of st.html elements (e.g. a cookie's script)
    errors: list[str] = field(default_factory=list)  # exception elements, error alerts, page not found, compile error
    widgets: dict[str, object] = field(
        default_factory=dict
    )  # key= -> the widget's proto (id, options, value), the page's
    bytes_received: int = 0
    fragment: bool = False  # a fragment's rerun (a widget of that fragment changed), not the whole page

    def has(self, fragment: str) -> bool:
        """True when some text of the run contains ``fragment``."""
        return any(fragment in t for t in self.texts)


def widget_key(element_id: str) -> str | None:
    """The ``key=`` of a widget from its element id (``$$ID-<hash>-<key>``), None for unkeyed ones."""
    parts = element_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "$$ID" and parts[2] != "None" else None


class Session:
    """One browser-less session on an open websocket (``async with connect(url) as session``)."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.page_hash: str | None = None  # the page shown now
        self.pages: dict[str, str] = {}  # URL path -> page script hash
        self.query = ""  # the query string as the script last wrote it
        self.fragment_of: dict[str, str] = {}  # widget id -> id of the fragment that draws it ("" for none)
        self.widgets: dict[str, object] = {}  # the page's widgets as the browser shows them, by key=
        self.auto_reruns: dict[str, float] = {}  # fragment id -> seconds: fragments drawn with run_every

    async def run(
        self, page: str | None = None, query: str | None = None, widgets: list | None = None, fragment: str = ""
    ) -> Run:
        """Ask for one run and read the replies until the script finishes.

        ``page``: a URL path to open (by its script hash once the navigation named it, else by
        name, as loading the URL does); None reruns the page shown. ``query``: the query string
        to send (None: the one the script last wrote, as the browser keeps it). ``widgets``:
        ``WidgetState`` messages to send (widgets not sent keep their values on the server). When
        every widget sent on the page shown was drawn by one fragment, only that fragment reruns.
        ``fragment``: rerun only this fragment of the page shown (as a browser does for a fragment
        drawn with ``run_every``, whose ids are in :attr:`auto_reruns`).
        """
        msg = BackMsg()
        if page is None and self.page_hash is not None:
            msg.rerun_script.page_script_hash = self.page_hash
        elif page is not None and page in self.pages:
            msg.rerun_script.page_script_hash = self.pages[page]
        else:
            msg.rerun_script.page_name = page or ""
        msg.rerun_script.query_string = self.query if query is None else query
        msg.rerun_script.widget_states.SetInParent()
        for state in widgets or ():
            msg.rerun_script.widget_states.widgets.append(state)
        fragments = {self.fragment_of.get(state.id, "") for state in widgets or ()}
        run = Run()
        if page is None and fragment:
            msg.rerun_script.fragment_id = fragment
            run.fragment = True
        elif page is None and len(fragments) == 1 and "" not in fragments:
            msg.rerun_script.fragment_id = fragments.pop()
            run.fragment = True
        if not run.fragment:  # a full run draws the page's fragments (and their run_every) anew
            self.auto_reruns.clear()
        drawn: dict[str, float] = {}  # the run_every fragments drawn by the latest script run
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout=RUN_TIMEOUT_S)
            run.bytes_received += len(data)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                widget_id = self._read_element(fwd.delta.new_element, run)
                if widget_id:
                    self.fragment_of[widget_id] = fwd.delta.fragment_id
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "add_block":
                block = fwd.delta.add_block
                if block.WhichOneof("type") == "expandable" and (key := widget_key(block.expandable.id)):
                    run.widgets[key] = block.expandable  # an expander with key=: opened by toggle_state
                    self.fragment_of[block.expandable.id] = fwd.delta.fragment_id
            elif kind == "navigation":
                self.pages.update({p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages})
                if fwd.navigation.page_script_hash:
                    self.page_hash = fwd.navigation.page_script_hash
            elif kind == "auto_rerun":
                self.auto_reruns[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
                drawn[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "page_not_found":
                run.errors.append(f"page not found: {page}")
            elif kind == "script_finished":
                status = fwd.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    drawn = {}
                    continue  # interrupted by a newer run (st.rerun): wait for that one to finish
                if status == ForwardMsg.FINISHED_SUCCESSFULLY:
                    # a whole run (also one a fragment's st.rerun(scope="app") started): as in a browser,
                    # only the fragments it drew rerun by themselves; the server ignores a request to
                    # rerun a fragment it no longer has and never answers it
                    self.auto_reruns = drawn
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    run.errors.append("script compile error")
                run.seconds = time.perf_counter() - start
                if run.fragment:  # the rest of the page stays as it was
                    self.widgets.update(run.widgets)
                    run.widgets = dict(self.widgets)
                else:
                    self.widgets = dict(run.widgets)
                return run

    async def refresh(self) -> list[Run]:
        """Rerun every ``run_every`` fragment the page shows, as a browser does when their time comes;
        a fragment that an earlier one's ``st.rerun(scope="app")`` took off the page is not asked for
        (the server never answers a fragment it no longer has). The runs, in order."""
        runs = []
        for fragment in list(self.auto_reruns):
            if fragment in self.auto_reruns:  # still on the page after the runs before it
                runs.append(await self.run(fragment=fragment))
        return runs

    @staticmethod
    def _read_element(element, run: Run) -> str | None:
        """Keep what ``run`` reports of ``element``; return a widget's id (None for other elements)."""
        element_type = element.WhichOneof("type")
        if element_type == "exception":
            run.errors.append(f"exception: {element.exception.type} {element.exception.message[:200]}")
            return None
        if element_type == "alert":
            if element.alert.format == Alert.ERROR:
                run.errors.append(f"error message: {element.alert.body[:200]}")
            elif element.alert.format == Alert.SUCCESS:
                run.successes.append(element.alert.body)
        if element_type == "html":
            run.html.append(element.html.body)
            return None
        if element_type in _TEXT_FIELDS:
            run.texts.append(getattr(getattr(element, element_type), _TEXT_FIELDS[element_type]))
            return None
        proto = getattr(element, element_type) if element_type else None
        widget_id = getattr(proto, "id", "") or ""
        key = widget_key(widget_id)
        if key is not None:
            run.widgets[key] = proto
        return widget_id or None


#: The local address a task's sessions connect from (None: the system's choice). A proxy that keeps a
#: client on one server by its address (``bench.cluster``) then sees each session as another client.
LOCAL_HOST: contextvars.ContextVar[str | None] = contextvars.ContextVar("LOCAL_HOST", default=None)


def connect(url: str, cookie: str | None = None):
    """A websocket to the app's stream at ``url`` (http://host:port): ``async with connect(url) as ws``,
    from the address :data:`LOCAL_HOST` holds in this task, if any; ``cookie``: a ``Cookie`` header
    to send, as a browser sends the cookies it keeps (e.g. ``tinygpt_me=…`` after a reload)."""
    local = LOCAL_HOST.get()
    return websockets.connect(
        stream_url(url),
        subprotocols=["streamlit"],
        **({"additional_headers": {"Cookie": cookie}} if cookie else {}),
        max_size=None,
        open_timeout=120,
        ping_interval=None,
        **({"local_addr": (local, 0)} if local else {}),
    )


def text_state(widget, value: str):
    """The state of a text input (or a text area) holding ``value``."""
    return _state(widget, string_value=value)


def click(widget):
    """A button press."""
    return _state(widget, trigger_value=True)


def toggle_state(widget, on: bool):
    """The state of a toggle or checkbox (or an expander drawn with ``key=``: open or closed)."""
    return _state(widget, bool_value=on)


def choice_state(widget, label: str):
    """A radio's choice, by the option's label as shown (``widget.options``)."""
    return _state(widget, string_value=label)


def select_slider_state(widget, label: str):
    """A select slider's value, by the option's label as shown (``widget.options``)."""
    state = _state(widget)
    state.string_array_value.data.append(label)
    return state


def pills_state(widget, labels: list[str]):
    """The state of pills (a button group) with the options shown as ``labels`` picked."""
    state = _state(widget)
    state.string_array_value.data.extend(labels)
    return state


def _state(widget, **value):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=widget.id, **value)
