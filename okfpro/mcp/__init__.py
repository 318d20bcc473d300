"""okfpro's MCP server: the workspace and its scoped memory for any agent that speaks MCP.

``tools`` (the tool table), ``watch`` (the warm, revalidated bundle), ``tokens`` (HTTP
bearer tokens mapped to identities), ``server`` (the SDK server), ``app`` (wiring a
bundle to a transport).  Only ``okfpro mcp`` imports this package: the MCP SDK is never
on a hook's or another verb's import path.
"""
