"""The HTTP API of saved workflows: the document, its n8n export, and its steps in words."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import JSONResponse

from catalog import load_catalogue
from catalog.n8n.export import to_n8n
from catalog.operations import load_operations
from services.gateway import logic
from services.gateway.access import tenant_of
from services.gateway.models import N8nWorkflow, WorkflowDocument, errors
from services.gateway.routes import the_store
from services.gateway.steps import WorkflowSteps, workflow_steps
from services.gateway.store import SessionStore

router = APIRouter(prefix="/v1/workflows", responses=errors(401, 421, 429, 503))
NOT_FOUND = errors(404, 422, e404="No workflow with that id for your tenant.")
FORMAT_HELP = (
    "Absent: the planwire workflow document (docs/workflow-format.md). `n8n`: the same "
    "workflow as n8n workflow JSON, sent as a file download."
)
DOCUMENT_WORDS = (
    "The workflow document, or with `format=n8n` an n8n workflow (name, nodes, connections, "
    "settings) with a Content-Disposition filename `<workflow id>.n8n.json`. Credentials are "
    "not included; each node's notes say what is left to fill in."
)


async def owned_workflow(
    workflow_id: str, tenant: str = Depends(tenant_of), store: SessionStore = Depends(the_store)
) -> dict[str, Any]:
    """The saved document if it belongs to the caller's tenant; 404 otherwise."""
    found = await store.workflow(workflow_id) if logic.plausible_id(workflow_id) else None
    if not found or await store.tenant(found[0]) != tenant:
        raise HTTPException(404, "no workflow with that id")
    return found[1]


@router.get(
    "/{workflow_id}",
    response_model=WorkflowDocument | N8nWorkflow,
    responses={200: {"description": DOCUMENT_WORDS}}
    | errors(400, e400="An unknown `format`.")
    | NOT_FOUND,
)
async def get_workflow(
    document: dict[str, Any] = Depends(owned_workflow),
    export: str | None = Query(None, alias="format", description=FORMAT_HELP),
) -> JSONResponse:
    """The saved workflow document (the caller's tenant only); `?format=n8n` exports it as
    an n8n workflow to import (`n8n import:workflow --input=FILE`, or paste in the editor).
    Sent as saved: the models above describe it, they do not filter it."""
    if export not in (None, "n8n"):
        raise HTTPException(400, f"unknown format {export!r}; the one offered is n8n")
    if export == "n8n":
        filename = f"{document.get('workflow_id', 'workflow')}.n8n.json"
        disposition = {"Content-Disposition": f'attachment; filename="{filename}"'}
        return JSONResponse(to_n8n(document), headers=disposition)
    return JSONResponse(document)


@router.get("/{workflow_id}/steps", response_model=WorkflowSteps, responses=NOT_FOUND)
async def get_workflow_steps(document: dict[str, Any] = Depends(owned_workflow)) -> WorkflowSteps:
    """The saved workflow in words, as the page draws it: each step's app, what it does, the
    values it was given, what is left to fill in, and the edges between steps."""
    return workflow_steps(document, load_catalogue(), load_operations())
