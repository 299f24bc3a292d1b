"""QR codes of the class's links, for the projector and the teacher's page (segno)."""

from __future__ import annotations

import io

import segno


def qr_png(url: str, scale: int = 6) -> bytes:
    """A QR code of ``url`` as PNG bytes (black on white, a quiet zone of 2 modules)."""
    buffer = io.BytesIO()
    segno.make(url, error="m" if len(url) < 500 else "l").save(buffer, kind="png", scale=scale, border=2)
    return buffer.getvalue()


def qr_svg(url: str) -> bytes:
    """The same QR code as an SVG file (sharp at any size, e.g. for a slide)."""
    buffer = io.BytesIO()
    segno.make(url, error="m" if len(url) < 500 else "l").save(buffer, kind="svg", scale=10, border=2)
    return buffer.getvalue()
