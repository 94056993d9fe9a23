"""A team that talks until it is killed; run as a script, it records to a SQLite file.

`python crash_team.py STORE` starts @Ping and @Pong on scripted models and sets them
talking forever, each answering the other's number with the next. A subscriber prints
`sent <message id>` for every message sent, and subscribers hear of a message only once its
batch is committed: so a line on stdout is the process telling the test "the record says
this was sent". The test kills the process with SIGKILL whenever it likes.
"""

from __future__ import annotations

import sys

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorSystem,
    AgentMessage,
    EventSubscriber,
    Message,
    Orchestrator,
    SentMessage,
)
from retinue.testing import incoming, scripted_card, send


def volley(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answer the number with the next one, to whoever sent it."""
    got = incoming(messages)
    return send(info, (got.sender, "request", str(int(got.content) + 1)))


class PrintSent(EventSubscriber):
    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage):
            print(f"sent {message.message.id}", flush=True)


if __name__ == "__main__":
    system = ActorSystem(store=sys.argv[1])
    orchestrator = system.createActor(Orchestrator)
    team = system.proxy_ask(orchestrator, Orchestrator)
    team.subscribe(PrintSent())
    ping = team.createActor(
        "retinue.BaseAgent", scripted_card("Ping", "crash_team:volley").get_config_copy()
    )
    pong = team.createActor(
        "retinue.BaseAgent", scripted_card("Pong", "crash_team:volley").get_config_copy()
    )
    system.send(pong, AgentMessage(content="0"), sender=ping)
    print("started", flush=True)
    system.wait_idle(timeout=3600)  # never idle: the volley goes on until the kill
