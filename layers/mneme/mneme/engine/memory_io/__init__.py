"""Memory I/O of the engine: reads and tool writes, the HTTP and MCP memory requests, the memory writer."""
