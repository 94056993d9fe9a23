"""retinue-workspace: a file workspace sealed in one directory, and `!!image` references."""

from retinue_workspace.card import SYSTEM_PROMPT, WorkspaceTool
from retinue_workspace.errors import WorkspaceError, WorkspaceNotFoundError
from retinue_workspace.files import Entry, Listing, Workspace
from retinue_workspace.images import sniff_image

__all__ = [
    "SYSTEM_PROMPT",
    "Entry",
    "Listing",
    "Workspace",
    "WorkspaceError",
    "WorkspaceNotFoundError",
    "WorkspaceTool",
    "sniff_image",
]
