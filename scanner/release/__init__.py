"""Release gates for server authors: `mcp-lock semver` checks a version bump against the surface changes."""
