"""Strings of a class that keeps going: a refused answer, a lost store file, the teacher's key, guessing — English."""

STRINGS: dict[str, str] = {
    "store.refused": "the class store did not accept it (the server's log says why)",
    "store.gone": "the class store's file was deleted or moved while the app was running, so nothing can be recorded until the app is restarted (the server's log names the file)",
    "class.refused": "{n} {n:answer|answers} could not be saved: {reason}. {n:It stays|They stay} in My answers; your other answers are sent as usual.",
    "class.sent_now": "The store is back: your waiting answers have been sent.",
    "teacher.no_access": "This link does not open a class: there is no such class, it has expired, or the key is not its teacher's key. Open the teacher's link you got when the class was made.",
    "teacher.too_many": "Too many links that open no class were tried from this device. Wait {seconds} s, then open the teacher's link again.",
    "short.too_many": "Too many short links that do not exist were tried from this device. Wait {seconds} s, then open the link again.",
    "class.too_many": "Too many class codes that name no class were tried from this device. Wait {seconds} s, then open the link again.",
    "short.waiting": "The short link {code} cannot be opened yet: {reason}. This page tries again by itself every few seconds and opens the lesson as soon as it can.",
    "class.other_tab": "You answered “{question}” before, in another tab: your first answer, {answer}, is the one kept and counted.",
    "teacher.roster": "Who answered ({n} {n:student|students})",
    "teacher.roster_help": "Nicknames as students typed them (— for a student who stayed anonymous). Not for the projector.",
    "teacher.col_student": "student",
    "teacher.col_questions": "questions answered",
    "teacher.col_right": "right",
    "teacher.anonymous": "—",
    "builder.local_link": "This link names {host}, this computer itself: the students' phones cannot open it. Open this page by the computer's address on the school's network (for example `http://192.168.1.20:8501`; `hostname -I` shows it) and make the link there.",
    "link.text_cut": "The link's {name}= has {n} characters; a link carries at most {limit}, so the first {limit} are used.",
}
