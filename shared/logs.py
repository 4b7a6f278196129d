"""Logging for every process: plain text on a terminal, one JSON object a line in production.

A JSON line names the session and event being handled and the trace it belongs to, so one
search finds everything a turn did across services (`PLANWIRE_LOG_FORMAT=json`).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from shared.scope import current_event, current_session
from shared.tracing import current_trace_id

TEXT_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", "session_id", "event_id", "trace_id", ...}`."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "message": record.getMessage(),
            "session_id": current_session(),
            "event_id": current_event(),
            "trace_id": current_trace_id(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps({k: v for k, v in line.items() if v is not None})


def configure_logging(level: str, fmt: str, service: str) -> None:
    """Root logging for one process; `fmt` is "json" or "text"."""
    handler = logging.StreamHandler()
    handler.setFormatter(
        JsonFormatter(service) if fmt == "json" else logging.Formatter(TEXT_FORMAT)
    )
    logging.basicConfig(level=level, handlers=[handler], force=True)
