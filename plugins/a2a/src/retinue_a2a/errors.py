"""The one error a remote agent's turn fails with: the kernel's failure path reports it."""

from __future__ import annotations


class RemoteAgentError(RuntimeError):
    """The remote A2A agent could not answer: unreachable, an error, a failed or refused
    task, or no answer within the member's timeout. The message says which, in one line."""
