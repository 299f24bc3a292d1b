"""Strings of the lesson view (a teacher's link that shows only some pages and controls) — Chinese."""

STRINGS: dict[str, str] = {
    "lesson.note": "**课堂视图**：老师的链接只显示今天这节课的页面和控件。要离开课堂视图，请[打开完整应用]({url})（新标签页）。",
    "lesson.bad_pages": "链接中的这些页面本应用没有：{names}。可用的页面：{accepted}。",
    "lesson.not_in_lesson": "今天这节课不包括“{page}”页。请从这节课的第一页“{first}”接着学：",
    "lesson.bad_controls": "老师的链接里有本应用没有的控件（{names}）；课程照常显示其余的控件。",
    "lesson.accepted_controls": "课程链接可用的控件名（供老师参考）",
}
