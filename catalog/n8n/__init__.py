"""Export to n8n: a workflow document as an n8n workflow, and the node facts it relies on.

`descriptions` reads n8n's own node descriptions (the `n8n-nodes-base` package, at check
time only); `facts` is what the export needs from them, generated into `facts.json` so the
gateway exports without the package; `export` and `values` build the n8n workflow;
`validate` checks an export against the descriptions.
"""
