"""Installing what a launch runs: resolve the package's whole dependency tree with no package code running,
record it (the lock's `launch.tree`), install exactly that tree into a content-addressed store outside the
repository, and name the command that boots the server from it."""
