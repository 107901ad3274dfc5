"""mcp-lock: pin MCP server tool definitions and check them in CI."""

__version__ = "0.1.0"
