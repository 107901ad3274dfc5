"""What one command run is made of: the workspace, booting and pinning, the operations and their outcome."""
