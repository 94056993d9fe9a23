"""Media references: `!!shot.png` in a prompt becomes the image itself, for models that see.

A reference is `!!` at the start of the text, after whitespace or after an opening bracket,
followed by a quoted name (`!!"my screenshot.png"`, `!!'a b.png'`) or by a run of
non-space characters (`!!shots/*.png`). `!!` inside a word (`wow!!ok`) or before another
`!` (`!!!`) is ordinary text. Punctuation that ends a sentence right after a bare name
(`see !!a.png.`) belongs to the sentence unless a file really has that name.

What each reference becomes, the reference itself always staying in the text:

* an image (PNG, JPEG, GIF or WebP by its first bytes) — the bytes as pydantic-ai
  `BinaryContent`, right after the reference;
* a pattern — every matching image, sorted by path, each labelled with its path;
* another kind of file — a note telling the model to read it with `workspace_read`;
* a miss, a refusal (`..`, an absolute path, a link out of the workspace), a directory, an
  image too large — an inline note naming the problem, so the model knows what it lacks.

Caps bound what one prompt can pull in, whoever wrote it: images per prompt, bytes per
image, and references looked at.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from pydantic_ai.messages import BinaryContent, UserContent

from retinue_workspace.errors import WorkspaceError
from retinue_workspace.images import SNIFF_BYTES, sniff_image
from retinue_workspace.paths import is_pattern
from retinue_workspace.text import human_size

if TYPE_CHECKING:
    from retinue_workspace.files import Workspace

logger = logging.getLogger(__name__)

MAX_REFERENCES = 32
"""References looked at in one prompt; later ones stay as they were written."""
MAX_NAMED_SKIPS = 5
"""How many non-image matches of a pattern are named in its note."""

REFERENCE = re.compile(
    r"(?<![^\s(\[{<])!!"
    r"(?:\"(?P<double>[^\"\n]+)\"|'(?P<single>[^'\n]+)'|(?P<bare>[^\s!\"'][^\s]*))"
)
_TRAILING = ".,;:!?)]}>'\""


class ExpandedPrompt(list[UserContent]):
    """A prompt with images in it: text and `BinaryContent`, in order.

    A list, as pydantic-ai takes it; it reads as text with a placeholder per image, so an
    operator who runs the hidden command by hand sees what was attached, not the bytes.
    """

    def __str__(self) -> str:
        return "".join(
            f"<image {part.identifier} ({part.media_type}, {human_size(len(part.data))})>"
            if isinstance(part, BinaryContent)
            else str(part)
            for part in self
        )


class _Builder:
    """Collects the expanded prompt, merging neighbouring text."""

    def __init__(self) -> None:
        self.parts: list[UserContent] = []
        self.images = 0

    def text(self, text: str) -> None:
        if not text:
            return
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] += text
        else:
            self.parts.append(text)

    def image(self, content: BinaryContent) -> None:
        self.parts.append(content)
        self.images += 1


def expand_media_refs(
    prompt: str, workspace: Workspace, *, max_images: int, max_image_bytes: int
) -> str | ExpandedPrompt:
    """`prompt` with its `!!` references expanded; `prompt` itself when it has none.

    Returns a plain string when no image was attached (only notes were added), so the
    prompt stays text; never raises for anything a reference says.
    """
    if "!!" not in prompt:
        return prompt
    found = list(REFERENCE.finditer(prompt))
    if not found:
        return prompt
    expander = _Expander(workspace, max_images=max_images, max_image_bytes=max_image_bytes)
    out = _Builder()
    position = 0
    for index, match in enumerate(found):
        out.text(prompt[position : match.start()])
        position = match.end()
        if index >= MAX_REFERENCES:
            out.text(match.group(0))
            continue
        expander.expand(match, out)
    out.text(prompt[position:])
    if len(found) > MAX_REFERENCES:
        out.text(
            f"\n[Only the first {MAX_REFERENCES} !! references of this message were looked at.]"
        )
    if out.images == 0:
        return "".join(part for part in out.parts if isinstance(part, str))
    return ExpandedPrompt(out.parts)


class _Expander:
    """Turns one reference at a time into text and images, within the prompt's caps."""

    def __init__(self, workspace: Workspace, *, max_images: int, max_image_bytes: int) -> None:
        self.workspace = workspace
        self.max_images = max_images
        self.max_image_bytes = max_image_bytes

    def expand(self, match: re.Match[str], out: _Builder) -> None:
        quoted = match["double"] or match["single"]
        name = quoted if quoted is not None else match["bare"]
        tail = ""
        if quoted is None:
            name, tail = self._split_tail(name)
        written = match.group(0)[: len(match.group(0)) - len(tail)]
        out.text(written)
        try:
            if is_pattern(name) and not self.workspace.exists(name):
                self._pattern(name, out)
            else:
                self._single(name, out)
        except WorkspaceError as exc:
            out.text(f" [error: {exc}]")
        except Exception as exc:  # a broken reference must never cost the turn
            logger.warning("media reference %r could not be expanded", name, exc_info=True)
            out.text(f" [error: could not be read ({type(exc).__name__})]")
        out.text(tail)

    def _split_tail(self, name: str) -> tuple[str, str]:
        """A bare name and the sentence punctuation after it (kept when a file has it)."""
        stripped = name.rstrip(_TRAILING)
        if stripped == name or not stripped or self._names_something(name):
            return name, ""
        return stripped, name[len(stripped) :]

    def _names_something(self, name: str) -> bool:
        if is_pattern(name) and not self.workspace.exists(name):
            try:
                return bool(self.workspace.match_files(name)[0])
            except WorkspaceError:
                return False
        return self.workspace.exists(name)

    def _single(self, name: str, out: _Builder) -> None:
        image = self._load(name)
        if image is None:
            out.text(" [not an image; read it with the workspace_read tool]")
        elif out.images >= self.max_images:
            out.text(f" [not attached: at most {self.max_images} images per message]")
        else:
            out.image(image)

    def _pattern(self, pattern: str, out: _Builder) -> None:
        paths, cut = self.workspace.match_files(pattern)
        if not paths:
            raise WorkspaceError(f"nothing in the workspace matches {pattern}")
        others: list[str] = []
        problems: list[str] = []
        left_out = 0
        for path in paths:
            try:
                image = self._load(path)
            except WorkspaceError as exc:
                problems.append(str(exc))
                continue
            if image is None:
                others.append(path)
            elif out.images >= self.max_images:
                left_out += 1
            else:
                out.text(f" [image: {path}]")
                out.image(image)
        if others:
            named = ", ".join(others[:MAX_NAMED_SKIPS])
            if len(others) > MAX_NAMED_SKIPS:
                named += f" and {len(others) - MAX_NAMED_SKIPS} more"
            out.text(f" [also matched, not images: {named}; read them with workspace_read]")
        for problem in problems[:MAX_NAMED_SKIPS]:
            out.text(f" [error: {problem}]")
        if left_out:
            out.text(
                f" [{left_out} more matching image{'s' if left_out != 1 else ''} not attached: "
                f"at most {self.max_images} images per message]"
            )
        if cut:
            out.text(" [the workspace is too large to search completely; narrow the pattern]")

    def _load(self, name: str) -> BinaryContent | None:
        """The image at `name` as `BinaryContent`, or None when the file is not an image."""
        with self.workspace.open(name) as file:
            media_type = sniff_image(file.stream.read(SNIFF_BYTES))
            if media_type is None:
                return None
            if file.size > self.max_image_bytes:
                raise WorkspaceError(
                    f"{file.path} is too large to attach ({human_size(file.size)}; images "
                    f"may be at most {human_size(self.max_image_bytes)})"
                )
            file.stream.seek(0)
            data = file.stream.read(self.max_image_bytes + 1)
            if len(data) > self.max_image_bytes:
                raise WorkspaceError(f"{file.path} grew while it was being attached")
        return BinaryContent(data=data, media_type=media_type, identifier=file.path)
