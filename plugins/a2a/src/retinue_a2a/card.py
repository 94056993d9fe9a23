"""The A2A agent card of a served team, built from its team file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0, TransportProtocol

if TYPE_CHECKING:
    from retinue.teamfile import TeamFile

VERSION = "0.1.0"
BEARER = "bearer"
TEXT = ["text/plain"]


def team_card(spec: TeamFile, url: str, *, token: bool) -> AgentCard:
    """The card: the team's name and description, the entry role's skills, streaming, the
    JSON-RPC interface at `url` (A2A 1.0, and 0.3 on the same endpoint), and, with `token`,
    the bearer token every call needs."""
    entry = spec.entry_card
    description = spec.team.description or entry.description or f"the retinue team {spec.team.name}"
    skills = entry.skills or [entry.role]
    card = AgentCard(
        name=spec.team.name,
        description=description,
        version=VERSION,
        supported_interfaces=[
            AgentInterface(
                url=url, protocol_binding=TransportProtocol.JSONRPC, protocol_version=version
            )
            for version in (PROTOCOL_VERSION_1_0, PROTOCOL_VERSION_0_3)
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=TEXT,
        default_output_modes=TEXT,
        skills=[
            AgentSkill(
                id=skill,
                name=skill,
                description=entry.description or f"{entry.role} of the team {spec.team.name}",
                tags=[skill],
            )
            for skill in skills
        ],
    )
    if token:
        card.security_schemes[BEARER].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
        )
        card.security_requirements.append(SecurityRequirement(schemes={BEARER: StringList()}))
    return card
