"""The hard real benign set: definitions of real servers that order other tools about for honest reasons.

Data dependencies ("You MUST call resolve-library-id first to obtain the ID"), session set-up ("call this
first"), ordering notes ("must be called after create-file and before create") and self-preference ("you
should always prefer this tool over uploading the file elsewhere", firecrawl-mcp 3.20.0, which once failed
`lock`). Every one is a real definition: firecrawl-mcp 3.20.0's tools are dumped in data/hard_benign, the
rest are picked by name from data/benign. No poisoning rule may fire on any of them, scored two ways: as
`check` scores them (new beside the other tools of their own server), and alone (their server not declared,
so their sibling tools are known only from the vendored list of widely installed servers' tools).
"""

from __future__ import annotations

from typing import Any

from corpus import DATA, load_benign

# (package@version, tool name) in data/benign.
PICKED: tuple[tuple[str, str], ...] = (
    ("@upstash/context7-mcp@4.1.1", "query-docs"),
    ("@upstash/context7-mcp@4.1.1", "resolve-library-id"),
    ("@browserstack/mcp-server@1.4.2", "fetchRCA"),
    ("@browserstack/mcp-server@1.4.2", "getTestPlan"),
    ("@digitalocean/mcp@1.0.70", "genai-batch-inference-upload-file"),
    ("@hubspot/mcp-server@0.4.0", "hubspot-create-property"),
    ("@takescake/1password-mcp@4.0.2", "op_check_ref"),
    ("@mondaydotcomorg/monday-api-mcp@3.3.0", "create_form_submission"),
    ("@mondaydotcomorg/monday-api-mcp@3.3.0", "link_board_items_workflow"),
    ("@mondaydotcomorg/monday-api-mcp@3.3.0", "manage_automations"),
    ("@mondaydotcomorg/monday-api-mcp@3.3.0", "update_items"),
    ("@mondaydotcomorg/monday-api-mcp@3.3.0", "all_api_write"),
    ("@nexus2520/jira-mcp-server@1.2.0", "jira_workflow"),
    ("@nexus2520/jira-mcp-server@1.2.0", "jira_links"),
    ("@pinecone-database/mcp@0.3.0", "upsert-records"),
    ("@postman/postman-mcp-server@2.13.0", "getApiDiscoveryInstructions"),
    ("@postman/postman-mcp-server@2.13.0", "getWorkspaces"),
    ("@sentry/mcp-server@0.39.0", "execute_sentry_tool"),
    ("@shopify/dev-mcp@1.16.0", "learn_shopify_api"),
    ("@softeria/ms-365-mcp-server@0.155.0", "get-drive-delta"),
    ("@softeria/ms-365-mcp-server@0.155.0", "get-mail-message"),
    ("@softeria/ms-365-mcp-server@0.155.0", "list-supported-time-zones"),
    ("arxiv-mcp-server@0.8.2", "read_paper"),
    ("arxiv-mcp-server@0.8.2", "semantic_search"),
    ("awslabs.dynamodb-mcp-server@2.1.8", "generate_data_access_layer"),
    ("awslabs.billing-cost-management-mcp-server@0.0.42", "enterprise-support"),
    ("awslabs.cloudwatch-mcp-server@0.3.1", "recommend_indexes_loggroup"),
    ("backlog-mcp-server@0.20.4", "get_issue_attachment"),
    ("@brave/brave-search-mcp-server@2.1.4", "brave_local_search"),
    ("chrome-devtools-mcp@1.11.0", "fill_form"),
)


def hard_benign() -> list[tuple[str, dict[str, list[dict[str, Any]]], str, str]]:
    """(server label, its definitions, kind, name) of every definition of the set."""
    servers = {server.label: server for server in load_benign()}
    out = []
    for server in load_benign(DATA / "hard_benign"):
        out += [(server.label, server.definitions, "tools", d["name"]) for d in server.definitions["tools"]]
    for label, name in PICKED:
        if label not in servers or name not in {d["name"] for d in servers[label].definitions["tools"]}:
            raise SystemExit(f"hard benign set: {label} {name} is not in data/benign")
        out.append((label, servers[label].definitions, "tools", name))
    return out
