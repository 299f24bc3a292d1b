"""The class store's trained models: checkpoint bytes published under a name (the settings'
digest) so that every server serves the same model for one set of settings
(``tinygpt.training.model_library.ModelStore``). A part of :class:`tinygpt.classroom.store.Store`."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from tinygpt.classroom.store_connection import StoreConnection
from tinygpt.classroom.store_schema import models_table


class ModelRows(StoreConnection):
    """The trained models' rows of the class store (its ``models`` table)."""

    def stored_model(self, name: str) -> tuple[bytes, str] | None:
        """The checkpoint bytes and settings text of the model published as ``name`` (marked used
        now), or None when there is none."""
        where = models_table.c.name == name
        with self._connection(write=True, what="read a model") as conn:
            row = conn.execute(sa.select(models_table.c.checkpoint, models_table.c.settings).where(where)).first()
            if row is None:
                return None
            conn.execute(models_table.update().where(where).values(used_at=self.clock()))
        return bytes(row.checkpoint), row.settings

    def has_model(self, name: str) -> bool:
        """Whether a model is published as ``name`` (its bytes are not read)."""
        with self._connection() as conn:
            return conn.execute(sa.select(models_table.c.name).where(models_table.c.name == name)).first() is not None

    def publish_model(self, name: str, settings: str, checkpoint: bytes, unused_days: float) -> bool:
        """Publish a model's ``checkpoint`` bytes as ``name`` unless one is published under that
        name already (the first stays); True when this one was kept. Models not used for
        ``unused_days`` days are deleted first."""
        now = self.clock()
        try:
            with self._connection(write=True, what="publish a model") as conn:
                conn.execute(models_table.delete().where(models_table.c.used_at < now - unused_days * 86400))
                found = conn.execute(sa.select(models_table.c.name).where(models_table.c.name == name)).first()
                if found is not None:
                    return False
                # the values as execute parameters, never in the statement: SQLAlchemy caches compiled
                # statements, and one holding the checkpoint would keep its bytes for the process's life
                row = {"name": name, "settings": settings, "checkpoint": checkpoint, "created_at": now, "used_at": now}
                conn.execute(models_table.insert(), row)
        except sa_exc.IntegrityError:  # another server published the same name a moment before
            return False
        return True
