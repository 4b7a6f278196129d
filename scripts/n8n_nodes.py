"""Check every n8n mapping in catalog/operations.json against n8n's own node descriptions.

Usage: python scripts/n8n_nodes.py PACKAGE_DIR [--operations FILE] [--facts FILE]
                                                [--workflow FILE ...]

PACKAGE_DIR is an unpacked `n8n-nodes-base` npm package (`npm pack n8n-nodes-base@VERSION`,
then `tar xzf`); its `dist/types/nodes.json` describes every node. For each event, action
and condition step the script checks that the node type exists, the typeVersion is one the
node lists, the resource and operation are options the node offers, and every parameter we
fill or fix exists on that node for that resource, operation and version (fixed values must
be among the parameter's options). It prints one line per problem and exits 1 if any.

--facts FILE writes the facts the export needs (catalog/n8n/facts.json) from the package.
--workflow FILE checks exported n8n workflows (GET /v1/workflows/{id}?format=n8n) instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from catalog.n8n import facts
from catalog.n8n.descriptions import (
    Nodes,
    Prop,
    find,
    is_trigger,
    listed_versions,
    load_credentials,
    load_nodes,
    node_of,
    option_exists,
    value_fits,
)
from catalog.n8n.validate import workflow_problems
from catalog.operations import N8nNode, Operations, load_operations


def problems(operations: Operations, nodes: Nodes, credentials: set[str]) -> list[str]:
    """Every problem found, as 'where: what' lines."""
    found = []
    for where, kind, mapping in facts.mappings(operations):
        found += [f"{where}: {p}" for p in check_mapping(mapping, kind, nodes)]
        credential = mapping.values.get("nodeCredentialType")
        if credential is not None and credential not in credentials:
            found.append(f"{where}: credential type {credential!r} is not in the package")
    return found


def check_mapping(mapping: N8nNode, kind: str, nodes: Nodes) -> list[str]:
    """Problems of one mapping: type, version, resource, operation, parameters, values."""
    version = mapping.type_version
    node = node_of(nodes, mapping.type, version)
    if node is None:
        listed = listed_versions(nodes, mapping.type)
        return [
            f"{mapping.type} {version} is not a node version n8n lists ({listed or 'no such node'})"
        ]
    name, found = node["name"], []
    if kind == "event" and not is_trigger(node) and not mapping.poll:
        found.append(f"{name} is not a trigger node and the event is not marked poll")
    context = facts.context_of(mapping)
    for key in ("resource", "operation"):
        value = context[key]
        if value is not None and not option_exists(node["properties"], key, value, context):
            found.append(f"{key} {value!r} is not offered by {name} {version}")
    for path in facts.targets_of(mapping):
        if not find(node["properties"], path, context):
            found.append(
                f"parameter {path!r} does not exist on {name} {version} for this operation"
            )
    for path, value in mapping.values.items():
        found += _check_value(node["properties"], path, value, context, name)
    return found


def _check_value(
    props: list[Prop], path: str, value: object, context: dict, name: str
) -> list[str]:
    found = find(props, path, context)
    if not found:
        return [f"fixed parameter {path!r} does not exist on {name} for this operation"]
    if any(value_fits(prop, value) for prop in found):
        return []
    return [f"fixed value {value!r} is not an option of {path!r} on {name}"]


def check_workflows(paths: list[Path], nodes: Nodes) -> list[str]:
    """Problems of exported n8n workflows, as 'file: what' lines."""
    found = []
    for path in paths:
        workflow = json.loads(path.read_text())
        found += [f"{path}: {p}" for p in workflow_problems(workflow, nodes)]
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the problems of the mappings; exit status 1 when there is any."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", type=Path, help="an unpacked n8n-nodes-base package")
    parser.add_argument("--operations", type=Path, help="operations file (default: packaged)")
    parser.add_argument("--facts", type=Path, help="write the export's facts to this file")
    parser.add_argument("--workflow", type=Path, nargs="+", help="exported workflows to check")
    args = parser.parse_args(argv)
    nodes = load_nodes(args.package)
    if args.workflow:
        found = check_workflows(args.workflow, nodes)
        print("\n".join(found), end="\n" if found else "")
        print(f"{len(args.workflow)} workflows checked, {len(found)} problems", file=sys.stderr)
        return 1 if found else 0
    operations = load_operations(args.operations)
    found = problems(operations, nodes, load_credentials(args.package))
    print("\n".join(found), end="\n" if found else "")
    count = sum(1 for _ in facts.mappings(operations))
    print(f"{count} n8n mappings checked, {len(found)} problems", file=sys.stderr)
    if args.facts and not found:
        args.facts.write_text(facts.dumps(facts.generate(operations, nodes)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
