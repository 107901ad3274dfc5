"""The repository policy, `mcp-lock.yaml`: its settings, the merge base's judgement of a change to it, and `ignore:`."""
