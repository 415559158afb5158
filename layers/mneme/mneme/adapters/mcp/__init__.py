"""The MCP client of the run function."""
