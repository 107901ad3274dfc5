"""The command line: `mcp-lock` and its subcommands, a thin layer over scanner.run and scanner.vcs."""
