"""The MCP adapter: the stdio server and its tools."""
