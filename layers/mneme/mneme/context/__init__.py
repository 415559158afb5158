"""Context assembly (SPEC §3, §4): the exact model request from configuration, history and memory hits.

Pure: no I/O, no boto3, no clock reads. The entry point is :func:`assemble`.
"""

from mneme.context.assembler import AssembledContext, ContextInput, assemble
from mneme.context.caching import CacheCapabilities, cache_capabilities
from mneme.context.tools import INTERNAL_TOOL_SPECS, ToolDefinition, build_tool_specs
from mneme.context.variables import TEMPLATE_VARIABLES, task_context_warnings

__all__ = [
    "INTERNAL_TOOL_SPECS",
    "TEMPLATE_VARIABLES",
    "AssembledContext",
    "CacheCapabilities",
    "ContextInput",
    "ToolDefinition",
    "assemble",
    "build_tool_specs",
    "cache_capabilities",
    "task_context_warnings",
]
