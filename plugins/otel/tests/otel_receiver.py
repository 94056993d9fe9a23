"""An OTLP/HTTP trace receiver on 127.0.0.1, started by a test: what an exporter really sent.

It answers `POST /v1/traces` as a collector does, decoding each body with the protocol's own
classes (`opentelemetry-proto`), so a span that arrives here went over the wire.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span


@dataclass(frozen=True)
class ReceivedSpan:
    """A span as it arrived: ids in hex, its name and attributes, its service's name."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    attributes: dict[str, object]
    service: str
    status_code: int


class Receiver:
    """What the receiver got, one decoded export request at a time."""

    def __init__(self, port: int) -> None:
        self.endpoint = f"http://127.0.0.1:{port}"
        self.requests: list[ExportTraceServiceRequest] = []
        self.content_types: list[str] = []
        self.lock = threading.Lock()

    def spans(self) -> list[ReceivedSpan]:
        with self.lock:
            requests = list(self.requests)
        found = []
        for request in requests:
            for resource_spans in request.resource_spans:
                resource = _attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    found.extend(
                        _received(span, str(resource.get("service.name", "")))
                        for span in scope_spans.spans
                    )
        return found


def _received(span: Span, service: str) -> ReceivedSpan:
    return ReceivedSpan(
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_span_id=span.parent_span_id.hex(),
        name=span.name,
        attributes=_attributes(span.attributes),
        service=service,
        status_code=span.status.code,
    )


def _attributes(pairs: object) -> dict[str, object]:
    decoded: dict[str, object] = {}
    for pair in pairs:  # type: ignore[attr-defined]
        value = pair.value
        kind = value.WhichOneof("value")
        decoded[pair.key] = getattr(value, kind) if kind is not None else None
    return decoded


@contextmanager
def otlp_receiver(port: int = 0) -> Iterator[Receiver]:
    """A receiver listening on `port` (0: a free one) of 127.0.0.1 until the block ends."""
    receiver: Receiver | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            assert receiver is not None
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with receiver.lock:
                receiver.requests.append(request)
                receiver.content_types.append(self.headers.get("Content-Type", ""))
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    receiver = Receiver(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
