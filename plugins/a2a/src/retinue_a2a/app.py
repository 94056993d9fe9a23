"""The served team's HTTP app: the SDK's request handler, routes and task store, behind
the token, on 127.0.0.1.

The SDK does the protocol: JSON-RPC (A2A 1.0's `SendMessage`, `SendStreamingMessage`,
`GetTask`, `ListTasks`, `CancelTask`, and 0.3's `message/send`, `message/stream`,
`tasks/get`, `tasks/cancel` on the same endpoint), server-sent events, the agent card. The
tasks are kept by `RecordedTaskStore`: in memory for the answers, and in the record of each
context's team (`--store`), from which a restarted server answers `tasks/get` and
`tasks/list` for the tasks of its earlier life.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from retinue.kit import uvicorn_server
from starlette.applications import Starlette

from retinue_a2a.card import team_card
from retinue_a2a.executor import TeamExecutor
from retinue_a2a.gate import bearer_gate
from retinue_a2a.task_store import RecordedTaskStore

if TYPE_CHECKING:
    import uvicorn

    from retinue_a2a.conversations import Conversations

HOST = "127.0.0.1"
PATH = "/"


def agent_url(port: int) -> str:
    return f"http://{HOST}:{port}{PATH}"


def build_app(conversations: Conversations, *, port: int, token: str | None) -> Any:
    """The ASGI app serving `conversations`' teams as one A2A agent."""
    card = team_card(conversations.spec, agent_url(port), token=token is not None)
    handler = DefaultRequestHandler(
        agent_executor=TeamExecutor(conversations),
        task_store=RecordedTaskStore(conversations),
        agent_card=card,
    )
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, PATH, enable_v0_3_compat=True),
    ]
    app: Any = Starlette(routes=routes)
    return bearer_gate(app, token) if token is not None else app


def http_server(conversations: Conversations, *, port: int, token: str | None) -> uvicorn.Server:
    """The uvicorn server of the agent on 127.0.0.1:`port` (`run()` it), with retinue's
    request timeout (`retinue.kit.uvicorn_server`)."""
    app = build_app(conversations, port=port, token=token)
    return uvicorn_server(app, host=HOST, port=port, log_level="info", timeout_graceful_shutdown=2)
