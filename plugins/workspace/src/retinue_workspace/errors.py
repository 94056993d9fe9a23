"""The one error the workspace raises: a request it refuses or cannot carry out."""

from __future__ import annotations


class WorkspaceError(ValueError):
    """Why a workspace operation was refused or failed, in one line a model or a person can act on.

    A `ValueError`, so the command registry hands it to an operator as the command's answer;
    the model's tools turn it into a retry the model can correct.
    """


class WorkspaceNotFoundError(WorkspaceError):
    """The path names nothing in the workspace (media expansion reports it as a miss)."""
