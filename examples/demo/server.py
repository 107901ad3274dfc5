"""A small MCP server for the mcp-lock example: a notes store with one tool, prompt and resource each.

Edit a description below and run `mcp-lock check` to watch the change being caught.
"""

from mcp.server import MCPServer

server = MCPServer("demo-notes", version="1.0.0", instructions="Keep short notes for the user.")
NOTES: list[str] = []


@server.tool()
def add_note(text: str, tag: str | None = None) -> str:
    """Add a note to the user's notebook."""
    NOTES.append(f"[{tag}] {text}" if tag else text)
    return f"{len(NOTES)} notes"


@server.tool()
def search_notes(query: str, limit: int = 10) -> list[str]:
    """Return notes that contain the query text."""
    return [note for note in NOTES if query.lower() in note.lower()][:limit]


@server.prompt()
def summarise() -> str:
    """Summarise every note in the notebook."""
    return "Summarise these notes:\n" + "\n".join(NOTES)


@server.resource("notes://all")
def all_notes() -> str:
    """Every note, one per line."""
    return "\n".join(NOTES)


if __name__ == "__main__":
    server.run()
