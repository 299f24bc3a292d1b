"""The i18n catalogue's data: one sub-package per language (``zh``, ``en``), one module per page in each,
every module holding ``STRINGS: dict[str, str]`` (key -> text). Every language has the same keys."""
