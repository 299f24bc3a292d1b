"""The i18n catalogue's data: one module per page, each with STRINGS = {key: (zh, en)}."""
