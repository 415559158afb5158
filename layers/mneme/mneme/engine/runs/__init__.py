"""The run lifecycle: admission, the step (prepare, loop, tools, delegation), its end, cancel and approvals."""
