"""The English catalogue: one module per page, each with STRINGS = {key: text}."""
