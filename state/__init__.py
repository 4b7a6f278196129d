"""The per-session records in Redis, one module per record, each with its one writer.

Every module here owns one record: its keys, its codec (how the value is laid out in Redis
and read back as a typed value), the writer that alone changes it, and the read functions
the other services use. `WRITERS` in each module names what writes and which service may
import it; `tests/unit/test_state_owners.py` holds the services to that. Records private to
one service (the gateway's outbox, the dispatcher's deadline set, a runner's audit trail)
stay in that service's store module. This package knows the domain's words on purpose;
`shared/` (infrastructure only) never imports it.
"""
