"""Where each node sits on n8n's canvas: left to right along the graph, branches stacked."""

from __future__ import annotations

from collections import defaultdict

STEP_X, STEP_Y, TOP = 280, 180, 300


def depths(keys: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Each node's column: the longest path to it from a node nothing leads to."""
    depth = dict.fromkeys(keys, 0)
    for _ in keys:  # relaxing |nodes| times settles any acyclic graph
        changed = False
        for source, target in edges:
            if depth[target] < depth[source] + 1:
                depth[target], changed = depth[source] + 1, True
        if not changed:
            break
    return depth


def positions(keys: list[str], edges: list[tuple[str, str]]) -> dict[str, list[int]]:
    """[x, y] per node: a column per depth, the nodes of one column centred on one line."""
    column = depths(keys, edges)
    stacks: dict[int, list[str]] = defaultdict(list)
    for key in keys:
        stacks[column[key]].append(key)
    placed = {}
    for depth, stack in stacks.items():
        for row, key in enumerate(stack):
            offset = (row - (len(stack) - 1) / 2) * STEP_Y
            placed[key] = [depth * STEP_X, int(TOP + offset)]
    return placed
