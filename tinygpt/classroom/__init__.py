"""The class: what its links and answers say (``class_links``), the class store of classes, answers
and short links (``store`` with its ``store_*`` parts), the class period a teacher leads (``period``),
the report of what the class learned (``report``) and guessing slowed per client (``guard``).
"""
