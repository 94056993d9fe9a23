"""A team that talks until it is killed; run as a script, it records to a store.

`python crash_team.py STORE` starts @Ping and @Pong on scripted models and sets them
talking forever, each answering the other's number with the next. A subscriber prints
`sent <message id>` for every message sent, and subscribers hear of a message only once its
batch is committed: so a line on stdout is the process telling the test "the record says
this was sent". The test kills the process with SIGKILL whenever it likes.

`python crash_team.py STORE UNTIL` is the finite form, for a reader to watch: it prints
`team <id>`, waits for a line on stdin, then volleys up to UNTIL, shuts down and exits.
"""

from __future__ import annotations

import os
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
    number = int(got.content) + 1
    limit = int(os.environ.get("VOLLEY_UNTIL") or 0)  # 0: no end
    if limit and number > limit:
        return send(info)  # the volley is over: nothing more to say
    return send(info, (got.sender, "request", str(number)))


class PrintSent(EventSubscriber):
    def on_message(self, message: Message) -> None:
        if isinstance(message, SentMessage):
            print(f"sent {message.message.id}\n", end="", flush=True)  # one write: whole lines


if __name__ == "__main__":
    until = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    os.environ["VOLLEY_UNTIL"] = str(until)
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
    if until:
        print(f"team {orchestrator.team_id}", flush=True)
        sys.stdin.readline()
    system.send(pong, AgentMessage(content="0"), sender=ping)
    print("started\n", end="", flush=True)
    system.wait_idle(timeout=3600)  # unbounded: never idle, the volley goes on until the kill
    system.shutdown()
