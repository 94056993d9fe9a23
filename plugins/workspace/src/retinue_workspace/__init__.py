"""retinue-workspace: a file workspace sealed in one directory, and `!!image` references."""

from retinue_workspace.card import SYSTEM_PROMPT, WorkspaceTool
from retinue_workspace.errors import WorkspaceError, WorkspaceNotFoundError
from retinue_workspace.files import Workspace
from retinue_workspace.images import sniff_image
from retinue_workspace.listing import Entry, Listing

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
