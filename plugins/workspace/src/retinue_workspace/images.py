"""Which files are images: decided by their first bytes, whatever their names say."""

from __future__ import annotations

SNIFF_BYTES = 16
"""How many leading bytes `sniff_image` needs."""


def sniff_image(head: bytes) -> str | None:
    """The media type of an image starting with `head` (PNG, JPEG, GIF, WebP), or None.

    A file called `photo.png` that holds text is not an image, and `scan` without a suffix
    that holds a PNG is one: the content decides, so nothing a model cannot display is ever
    sent to it as a picture.
    """
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None
