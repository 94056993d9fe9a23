"""retinue-team: hire and fire members by role, and the team as every agent's context."""

from retinue_team.card import DEFAULT_MAX_MEMBERS, MemberInfo, RoleInfo, TeamTool

__all__ = ["DEFAULT_MAX_MEMBERS", "MemberInfo", "RoleInfo", "TeamTool"]
