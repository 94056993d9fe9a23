"""`Published`: where one thread posts the latest version of a frozen value for any to read.

Team state is read far more often than it changes: a team's directory, a task board. Its
owner (one actor's thread) posts each new version, and a reader in any thread takes the
latest with one attribute read of an immutable object, so neither side takes a lock. A
version never goes back: posting an older one is refused.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class Versioned(Protocol):
    """A frozen value that counts its changes."""

    @property
    def version(self) -> int:
        """How many changes it has seen."""
        ...


VersionedT = TypeVar("VersionedT", bound=Versioned)


class Published(Generic[VersionedT]):
    """The latest version of a value its owner's thread posted; any thread reads `current`."""

    __slots__ = ("_current",)

    def __init__(self, value: VersionedT) -> None:
        self._current = value

    @property
    def current(self) -> VersionedT:
        """The latest version posted."""
        return self._current

    def publish(self, value: VersionedT) -> None:
        """Make `value` the one readers see; versions only grow."""
        if value.version < self._current.version:
            raise ValueError(
                f"version {value.version} is older than the published {self._current.version}"
            )
        self._current = value
